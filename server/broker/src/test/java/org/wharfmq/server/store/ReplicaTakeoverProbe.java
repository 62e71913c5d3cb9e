package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;
import org.wharfmq.server.config.ServerConfig;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

/**
 * Measures a replicated queue manager's takeover with and without the state a replica keeps as the records come: a
 * store puts MESSAGES persistent messages of BODY bytes and consumes the first CONSUMED (CONSUMED_PER_RECORD in each REMOVE record); its replication hook keeps
 * every batch. Each round applies the batches to a new replica's journal (as the replicated log does), then times
 * the store's open and the recovery handed to a queue manager (every message's bytes read back) once from the
 * replica's state (a takeover now) and once by crash recovery of a copy of the same journal (a takeover before),
 * alternated. See docs/resilience.md, "Replicated queue manager".
 *
 * <pre>java @bin/jvm.options -cp ... org.wharfmq.server.store.ReplicaTakeoverProbe DIRECTORY [MESSAGES] [CONSUMED] [BODY]
 *     [ROUNDS] [CONSUMED_PER_RECORD]</pre>
 */
public final class ReplicaTakeoverProbe {

    private ReplicaTakeoverProbe() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args.length > 0 ? args[0] : "/tmp/takeover-probe");
        int messages = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        int consumed = args.length > 2 ? Integer.parseInt(args[2]) : 90_000;
        int body = args.length > 3 ? Integer.parseInt(args[3]) : 1024;
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 3;
        int perRemove = args.length > 5 ? Integer.parseInt(args[5]) : 100;
        ReplicaJournal.deleteTree(root);
        List<ByteBuffer> batches = record(root.resolve("active"), messages, consumed, body, perRemove);
        long bytes = batches.stream().mapToLong(ByteBuffer::remaining).sum();
        System.out.printf("messages=%d consumed=%d body=%d consumedPerRecord=%d batches=%d replicatedBytes=%d%n",
                messages, consumed, body, perRemove, batches.size(), bytes);
        for (int round = 1; round <= rounds; round++) {
            Path data = root.resolve("replica" + round);
            ServerConfig config = StoreHarness.config(data).toBuilder().durability(Durability.OS).build();
            ReplicaJournal replica = ReplicaJournal.open(config);
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            long applyCpuStart = threads.getCurrentThreadCpuTime();
            long applyStart = System.nanoTime();
            for (ByteBuffer batch : batches) {
                replica.apply(batch.duplicate());
            }
            long applyNanos = System.nanoTime() - applyStart;
            long applyCpuNanos = threads.getCurrentThreadCpuTime() - applyCpuStart;
            replica.close();
            Path copy = root.resolve("copy" + round);
            copyTree(data.resolve(Journal.DIRECTORY), copy.resolve(Journal.DIRECTORY));
            // alternated: which one goes first changes every round, so the page cache favours neither
            String crash;
            String live;
            if (round % 2 == 1) {
                crash = time("before (crash recovery)", () -> JournalMessageStore.open(config.toBuilder()
                        .dataDirectory(copy).build()));
                live = time("now (the replica's state)", () -> JournalMessageStore.openReplicated(config,
                        records -> CompletableFuture.completedFuture(null), replica));
            } else {
                live = time("now (the replica's state)", () -> JournalMessageStore.openReplicated(config,
                        records -> CompletableFuture.completedFuture(null), replica));
                crash = time("before (crash recovery)", () -> JournalMessageStore.open(config.toBuilder()
                        .dataDirectory(copy).build()));
            }
            System.out.printf("round %d: replica applied %d batches in %.0f ms (%.0f ms of its thread's CPU); %s; %s%n",
                    round, batches.size(), applyNanos / 1e6, applyCpuNanos / 1e6, crash, live);
            ReplicaJournal.deleteTree(data);
            ReplicaJournal.deleteTree(copy);
        }
        ReplicaJournal.deleteTree(root);
    }

    private interface Opener {
        JournalMessageStore open() throws Exception;
    }

    /** Opens the store and recovers every message into a target that reads and drops it; the times, as text. */
    private static String time(String what, Opener opener) throws Exception {
        long start = System.nanoTime();
        long recovered;
        long read;
        long open;
        try (JournalMessageStore store = opener.open()) {
            open = System.nanoTime() - start;
            long[] count = new long[1];
            store.recover(new RecoveryTarget() {
                @Override
                public void queueRecovered(String queueName, long lastSequence) {
                }

                @Override
                public void messageRecovered(String queueName, long sequence, ByteBuf content, int deliveryCount) {
                    count[0]++;
                    content.release();
                }
            });
            recovered = count[0];
            read = store.recordsReadAtOpen();
        }
        long total = System.nanoTime() - start;
        return String.format("%s: open %.0f ms, open and recover %.0f ms (%d messages, %d records read back)", what,
                open / 1e6, total / 1e6, recovered, read);
    }

    /** Runs the workload on a store in {@code data}; the batches its replication hook was given, copied. */
    private static List<ByteBuffer> record(Path data, int messages, int consumed, int body, int perRemove)
            throws Exception {
        List<ByteBuffer> batches = new ArrayList<>();
        ServerConfig config = StoreHarness.config(data).toBuilder().durability(Durability.OS).build();
        String text = "x".repeat(body);
        try (JournalMessageStore store = JournalMessageStore.openReplicated(config, records -> {
            ByteBuffer copy = ByteBuffer.allocate(records.remaining());
            copy.put(records.duplicate()).flip();
            batches.add(copy.asReadOnlyBuffer());
            return CompletableFuture.completedFuture(null);
        })) {
            CountDownLatch puts = new CountDownLatch(messages);
            for (int i = 1; i <= messages; i++) {
                store.put(StoreHarness.Message.of("ORDERS", i, text), failure -> puts.countDown());
            }
            puts.await();
            CountDownLatch removes = new CountDownLatch((consumed + perRemove - 1) / perRemove);
            List<StoredMessage> batch = new ArrayList<>();
            for (int i = 1; i <= consumed; i++) {
                batch.add(StoreHarness.Message.of("ORDERS", i, ""));
                if (batch.size() == perRemove || i == consumed) {
                    store.remove(batch, failure -> removes.countDown());
                    batch = new ArrayList<>();
                }
            }
            removes.await();
        }
        return batches; // the writer thread added them; its stop (the close) came before
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(f).toString());
                Files.createDirectories(target.getParent());
                Files.copy(f, target);
            }
        }
    }
}
