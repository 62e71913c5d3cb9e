package org.wharfmq.server.store;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The answers that promise durability wait for the store: a journal that completes later, from its own thread,
 * slots in without changes to the send and commit paths.
 */
class StoreCompletionTest {

    /** A store that completes nothing until the test says so, from the test's thread. */
    static final class DeferredStore implements MessageStore {
        final BlockingQueue<String> records = new LinkedBlockingQueue<>();
        final BlockingQueue<StoreCompletion> pending = new LinkedBlockingQueue<>();

        @Override
        public void put(StoredMessage message, StoreCompletion completion) {
            records.add("put " + message.queueName() + " #" + message.sequence());
            pending.add(completion);
        }

        @Override
        public void remove(Iterable<? extends StoredMessage> messages, StoreCompletion completion) {
            for (StoredMessage m : messages) {
                records.add("remove " + m.queueName() + " #" + m.sequence());
            }
            pending.add(completion);
        }

        @Override
        public void putInTransaction(long transactionId, StoredMessage message) {
            records.add("tx put " + message.queueName() + " #" + message.sequence());
        }

        @Override
        public void removeInTransaction(long transactionId, StoredMessage message) {
            records.add("tx remove " + message.queueName() + " #" + message.sequence());
        }

        @Override
        public void commit(long transactionId, StoreCompletion completion) {
            records.add("commit");
            pending.add(completion);
        }

        @Override
        public void rollback(long transactionId, StoreCompletion completion) {
            records.add("rollback");
            pending.add(completion);
        }

        @Override
        public void close() {
        }

        void completeNext() throws InterruptedException {
            StoreCompletion completion = pending.poll(10, TimeUnit.SECONDS);
            assertNotNull(completion, "the server asked the store for nothing");
            completion.completed(null);
        }

        String nextRecord() throws InterruptedException {
            return records.poll(10, TimeUnit.SECONDS);
        }
    }

    private final DeferredStore store = new DeferredStore();
    private TestServer testServer;
    private WharfServer server;

    @BeforeEach
    void start() throws Exception {
        testServer = TestServer.start(c -> c, config -> WharfServer.builder(config).store(store).start());
        server = testServer.server();
    }

    @AfterEach
    void stop() {
        testServer.close();
    }

    @Test
    void persistentSendIsAnsweredAndDeliveredOnlyOnceStored() throws Exception {
        try (FrameClient producer = FrameClient.connect(server); FrameClient consumer = FrameClient.connect(server)) {
            producer.createSession(1, false);
            consumer.createSession(1, false);
            consumer.createConsumer(1, 1, "DURABLE", null, 10);
            WireMessage m = TestMessages.text("DURABLE", "safe");
            m.persistent = true;
            int send = producer.requestId();
            producer.send(new Frame.Send(send, 1, 1, TestMessages.encode(m)));
            assertEquals("put DURABLE #1", store.nextRecord());
            producer.expectNothingMore(); // no OK yet; and the server has handled the SEND
            consumer.expectNothingMore(1); // not visible yet: neither delivered nor waiting on the queue

            store.completeNext();
            assertEquals(new Frame.Ok(send), producer.next());
            Frame.Deliver d = consumer.expect(Frame.Deliver.class);
            assertEquals("safe", TestMessages.body(d.message()));

            int ack = consumer.requestId();
            consumer.send(new Frame.Ack(ack, 1, List.of(new Frame.Consumed(1, d.deliveryId()))));
            assertEquals("remove DURABLE #1", store.nextRecord());
            consumer.expectNothingMore(); // no OK before the removal is durable (the ACK is this connection's)...
            assertEquals(0, server.queueManager().depth("DURABLE")); // ...but the queue has let the message go
            store.completeNext();
            assertEquals(new Frame.Ok(ack), consumer.next());
            assertEquals(0, server.queueManager().depth("DURABLE"));
        }
    }

    @Test
    void commitIsAnsweredAndItsSendsVisibleOnlyOnceTheMarkerIsStored() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, true);
            client.createSession(2, false);
            client.createConsumer(2, 1, "TX", null, 10);
            WireMessage m = TestMessages.text("TX", "committed");
            m.persistent = true;
            client.sendMessageAsync(1, m);
            assertEquals("tx put TX #1", store.nextRecord());
            int commit = client.requestId();
            client.send(new Frame.Commit(commit, 1, List.of()));
            assertEquals("commit", store.nextRecord());
            client.expectNothingMore();

            store.completeNext();
            assertEquals("committed", TestMessages.body(client.expect(Frame.Deliver.class).message()));
            assertEquals(new Frame.Ok(commit), client.next());
        }
    }
}
