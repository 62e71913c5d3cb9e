package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.wharfmq.server.config.ServerConfig;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Drives a {@link JournalMessageStore} directly, without a server: messages are plain strings. */
final class StoreHarness {

    private StoreHarness() {
    }

    /** A message as the store sees it. */
    record Message(String queueName, long sequence, ByteBuf content) implements StoredMessage {
        static Message of(String queue, long sequence, String text) {
            return new Message(queue, sequence, Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
        }
    }

    /** What recovery handed over. */
    static final class Recovered implements RecoveryTarget {
        /** The durable subscriptions' queues. */
        final List<String> subscriptions = new ArrayList<>();
        final Map<String, Long> queues = new LinkedHashMap<>();
        final List<String> messages = new ArrayList<>();
        final Map<String, Integer> deliveryCounts = new LinkedHashMap<>();
        /** Prepared transactions in doubt, each as "branch: sends [Q#n=text, ...] consumed [Q#n=text/count, ...]". */
        final List<String> prepared = new ArrayList<>();
        /** Their ids, to commit or roll them back with, in the same order. */
        final List<Long> preparedIds = new ArrayList<>();
        /** The branches of the PREPAREs rolled back for a later PREPARE of the same branch, as text. */
        final List<String> superseded = new ArrayList<>();

        @Override
        public void subscriptionRecovered(SubscriptionRecord subscription) {
            subscriptions.add(subscription.queueName());
        }

        @Override
        public void queueRecovered(String queueName, long lastSequence) {
            queues.put(queueName, lastSequence);
        }

        @Override
        public void messageRecovered(String queueName, long sequence, ByteBuf content, int deliveryCount) {
            String text = content.toString(StandardCharsets.UTF_8);
            content.release();
            messages.add(queueName + "#" + sequence + "=" + text);
            deliveryCounts.put(queueName + "#" + sequence, deliveryCount);
        }

        @Override
        public void transactionPrepared(PreparedTransaction transaction) {
            List<String> sends = new ArrayList<>();
            transaction.sends().forEach(m -> sends.add(m.queueName() + "#" + m.sequence() + "="
                    + m.content().toString(StandardCharsets.UTF_8)));
            List<String> consumed = new ArrayList<>();
            transaction.consumed().forEach(m -> consumed.add(m.queueName() + "#" + m.sequence() + "="
                    + m.content().toString(StandardCharsets.UTF_8) + "/" + m.deliveryCount()));
            transaction.release();
            prepared.add(new String(transaction.branch(), StandardCharsets.UTF_8) + ": sends " + sends + " consumed "
                    + consumed);
            preparedIds.add(transaction.transactionId());
        }

        @Override
        public void transactionSuperseded(byte[] branch, long rolledBack, long kept) {
            superseded.add(new String(branch, StandardCharsets.UTF_8));
        }
    }

    /** The settings of a store in {@code data}: the defaults, with messages of up to 1 MiB. */
    static ServerConfig config(Path data) {
        return settings(data).build();
    }

    /** {@link #config}'s settings, for a test to change before building them. */
    static ServerConfig.Builder settings(Path data) {
        return ServerConfig.builder().dataDirectory(data).maxMessageLength(1024 * 1024);
    }

    /** Opens the store and replays it. */
    static JournalMessageStore open(ServerConfig config, Recovered into) throws Exception {
        JournalMessageStore store = JournalMessageStore.open(config);
        store.recover(into);
        return store;
    }

    /** A completion a test can wait for. */
    static final class Done implements StoreCompletion {
        final CompletableFuture<Throwable> result = new CompletableFuture<>();

        @Override
        public void completed(Throwable failure) {
            result.complete(failure);
        }

        /** Waits, and returns the failure (null when durable). */
        Throwable await() throws Exception {
            return result.get(30, TimeUnit.SECONDS);
        }
    }

    /** Puts and waits until durable; fails the test on a failure. */
    static void put(MessageStore store, Message m) throws Exception {
        Done done = new Done();
        store.put(m, done);
        Throwable failure = done.await();
        if (failure != null) {
            throw new AssertionError("put failed", failure);
        }
    }

    /** One message's copies: {@code text} on each of {@code queues} at {@code sequence}. */
    static List<Message> copies(long sequence, String text, String... queues) {
        List<Message> copies = new ArrayList<>();
        for (String queue : queues) {
            copies.add(Message.of(queue, sequence, text));
        }
        return copies;
    }

    /** Puts one message's {@link #copies} and waits until they are durable. */
    static void putCopies(MessageStore store, long sequence, String text, String... queues) throws Exception {
        Done done = new Done();
        store.putCopies(copies(sequence, text, queues), done);
        Throwable failure = done.await();
        if (failure != null) {
            throw new AssertionError("putCopies failed", failure);
        }
    }

    static void remove(MessageStore store, Message m) throws Exception {
        Done done = new Done();
        store.remove(List.of(m), done);
        Throwable failure = done.await();
        if (failure != null) {
            throw new AssertionError("remove failed", failure);
        }
    }
}
