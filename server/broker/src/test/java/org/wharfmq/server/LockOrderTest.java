package org.wharfmq.server;

import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.QueueConfiguration;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.queue.QueueManager;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The broker's locks nest in the {@link LockOrder} (the queue manager's definitions, the topic manager's, a queue's,
 * then a session's), checked on every acquisition while assertions are on: an acquisition out of order fails, and
 * messages sent, paged, read back, consumed with and without selectors, rolled back, acknowledged and published to
 * subscriptions take the locks in order, as do queues defined, altered and deleted while messages are sent and paged,
 * and a message backed out too often moves to its backout queue without holding two queues' locks.
 */
class LockOrderTest {

    @Test
    void aLockTakenOutOfOrderFailsAndIsRemembered() {
        assertTrue(LockOrder.checked(), "the tests run with assertions on (surefire's enableAssertions)");
        OrderedLock queue = new OrderedLock(LockOrder.Rank.QUEUE, "queue 'A'");
        OrderedLock otherQueue = new OrderedLock(LockOrder.Rank.QUEUE, "queue 'B'");
        OrderedLock session = new OrderedLock(LockOrder.Rank.SESSION, "session 1");

        queue.lock();
        session.lock(); // in order
        queue.lock(); // re-entered: not a new acquisition
        queue.unlock();
        session.unlock();
        AssertionError twoQueues = assertThrows(AssertionError.class, otherQueue::lock);
        assertTrue(twoQueues.getMessage().contains("takes the lock of queue 'B' (QUEUE) while holding the lock of"
                + " queue 'A' (QUEUE)"), twoQueues.getMessage());
        queue.unlock();

        session.lock();
        AssertionError inverted = assertThrows(AssertionError.class, queue::lock);
        session.unlock();
        assertTrue(inverted.getMessage().contains("while holding the lock of session 1 (SESSION)"), inverted.getMessage());
        assertTrue(LockOrder.violations().contains(inverted.getMessage()));
        assertEquals(0, queue.getHoldCount(), "refused before it was taken");
    }

    @Test
    void sendPagingConsumptionRollbackAndPublicationTakeTheLocksInOrder() throws Exception {
        Set<String> before = new HashSet<>(LockOrder.violations());
        try (TestServer testServer = TestServer.start(c -> c.pagingQueue("ORDER.PAGED", 4096, 0, MemoryPolicy.BLOCK)
                .queue("ORDER.PLAIN"))) {
            WharfServer server = testServer.server();
            try (FrameClient producer = FrameClient.connect(server); FrameClient consumer = FrameClient.connect(server)) {
                producer.createSession(1, false);
                for (int i = 0; i < 30; i++) { // well over the queue's 4 KiB: most are paged
                    WireMessage m = TestMessages.text("ORDER.PAGED", "m" + i + "x".repeat(500));
                    m.persistent = i % 2 == 0;
                    m.properties.put("odd", i % 2 == 1);
                    producer.sendMessage(1, m);
                }
                producer.sendMessage(1, TestMessages.text("ORDER.PLAIN", "plain"));

                consumer.createSession(1, false);
                consumer.createConsumer(1, 1, "ORDER.PAGED", "odd = TRUE", 5); // scans the paged messages
                List<Frame.Deliver> odd = consumer.deliveries(5);
                consumer.request(id -> new Frame.Rollback(id, 1, List.of(new Frame.Consumed(1, odd.get(4).deliveryId()))));
                List<Frame.Deliver> again = consumer.deliveries(5); // given back, delivered again
                consumer.createConsumer(1, 2, "ORDER.PLAIN", null, 10);
                Frame.Deliver plain = consumer.expect(Frame.Deliver.class);
                consumer.request(id -> new Frame.Ack(id, 1, List.of(new Frame.Consumed(1, again.get(4).deliveryId()),
                        new Frame.Consumed(2, plain.deliveryId())))); // unacknowledged, they held the budget
                consumer.createSession(2, false);
                consumer.createConsumer(2, 3, "ORDER.PAGED", null, 1); // one at a time: no delivery crosses an answer
                for (int i = 0; i < 25; i++) { // read back from the page files as the deliveries are acknowledged
                    Frame.Deliver d = consumer.expect(Frame.Deliver.class);
                    d.message().release();
                    consumer.request(id -> new Frame.Ack(id, 2, List.of(new Frame.Consumed(3, d.deliveryId()))));
                    consumer.send(new Frame.Credit(3, 1));
                }
                odd.forEach(d -> d.message().release());
                again.forEach(d -> d.message().release());
                plain.message().release();

                consumer.request(id -> new Frame.CreateConsumer(id, 2, 4, WireDestination.topic("order/#"), null, 10,
                        0, null));
                WireMessage publication = TestMessages.text("unused", "publication");
                publication.destination = WireDestination.topic("order/a");
                producer.sendMessage(1, publication);
                Frame.Deliver published = consumer.expect(Frame.Deliver.class);
                published.message().release();
                // its last consumer closed, the non-durable subscription ends: its queue is deleted under TOPICS
                consumer.request(id -> new Frame.CloseConsumer(id, 2, 4, published.deliveryId()));
            }
        }
        Set<String> after = new HashSet<>(LockOrder.violations());
        after.removeAll(before);
        assertEquals(Set.of(), after, "acquisitions out of order");
        assertTrue(LockOrder.nestings().containsAll(Set.of("QUEUE > SESSION", "TOPICS > QUEUE")),
                "deliveries and the subscription's end nested the locks: " + LockOrder.nestings());
    }

    @Test
    void definingAlteringAndDeletingQueuesWhileSendingAndPagingTakeTheLocksInOrder() throws Exception {
        Set<String> before = new HashSet<>(LockOrder.violations());
        try (TestServer testServer = TestServer.start(c -> c.pagingQueue("ORDER.PAGED", 4096, 0, MemoryPolicy.BLOCK))) {
            WharfServer server = testServer.server();
            QueueManager queues = server.queueManager();
            queues.defineQueue(QueueDefinition.named("ORDER.DEFINED").with(QueueConfiguration.MAX_BYTES, 4096L)
                    .with(QueueConfiguration.POLICY, MemoryPolicy.PAGE.toString())
                    .with(QueueConfiguration.PAGE_FULL_POLICY, MemoryPolicy.BLOCK.toString())); // pages past 4 KiB, as ORDER.PAGED does
            try (FrameClient producer = FrameClient.connect(server); FrameClient consumer = FrameClient.connect(server)) {
                producer.createSession(1, false);
                for (int i = 0; i < 30; i++) { // both queues well over their 4 KiB: most are paged
                    WireMessage m = TestMessages.text(i % 3 == 0 ? "ORDER.PAGED" : "ORDER.DEFINED",
                            "m" + i + "x".repeat(500));
                    m.persistent = i % 2 == 0;
                    m.properties.put("odd", i % 2 == 1);
                    producer.sendMessage(1, m);
                    if (i == 10) { // its settings change while it pages
                        queues.alterQueue("ORDER.DEFINED", Map.of("maxDepth", "1000"));
                    }
                }
                consumer.createSession(1, false);
                consumer.createConsumer(1, 1, "ORDER.DEFINED", "odd = TRUE", 5); // scans the paged messages
                List<Frame.Deliver> odd = consumer.deliveries(5);
                odd.forEach(d -> d.message().release());

                queues.defineQueue(QueueDefinition.named("ORDER.LATER")); // defined while the others page
                producer.sendMessage(1, TestMessages.text("ORDER.LATER", "later"));
                long paged = queues.find("ORDER.DEFINED").paged();
                assertTrue(paged > 0, "the queue deleted below holds paged messages: " + paged);
                // its waiting and paged messages and its consumer go with it, under the definitions lock
                int discarded = queues.deleteQueue("ORDER.DEFINED", true);
                assertEquals(20 - 5, discarded, "every message but the 5 delivered");
                assertEquals(1, queues.deleteQueue("ORDER.LATER", true));
                producer.sendMessage(1, TestMessages.text("ORDER.PAGED", "after"));
            }
        }
        Set<String> after = new HashSet<>(LockOrder.violations());
        after.removeAll(before);
        assertEquals(Set.of(), after, "acquisitions out of order");
        assertTrue(LockOrder.nestings().contains("DEFINITIONS > QUEUE"),
                "a queue defined, altered and deleted took its lock under the definitions lock: " + LockOrder.nestings());
    }

    @Test
    void aMessageBackedOutTooOftenMovesToItsBackoutQueueOnceTheQueuesLockIsReleased() throws Exception {
        Set<String> before = new HashSet<>(LockOrder.violations());
        try (TestServer testServer = TestServer.start(c -> c.queue("ORDER.BACKOUT")
                .queue(QueueDefinition.named("ORDER.BACKED").with(QueueConfiguration.BACKOUT_THRESHOLD, 1)
                        .with(QueueConfiguration.BACKOUT_QUEUE, "ORDER.BACKOUT")))) {
            WharfServer server = testServer.server();
            try (FrameClient producer = FrameClient.connect(server); FrameClient consumer = FrameClient.connect(server)) {
                producer.createSession(1, false);
                producer.sendMessage(1, TestMessages.text("ORDER.BACKED", "backed out once"));
                consumer.createSession(1, false);
                consumer.createConsumer(1, 1, "ORDER.BACKED", null, 10);
                Frame.Deliver d = consumer.expect(Frame.Deliver.class);
                d.message().release();
                // its backout count reaches the threshold (1): moved to ORDER.BACKOUT, not delivered again
                consumer.request(id -> new Frame.Rollback(id, 1, List.of(new Frame.Consumed(1, d.deliveryId()))));
                consumer.createConsumer(1, 2, "ORDER.BACKOUT", null, 10);
                Frame.Deliver moved = consumer.expect(Frame.Deliver.class);
                assertEquals(2, moved.consumerId(), "the message reached its backout queue");
                moved.message().release();
                assertEquals(0, server.queueManager().find("ORDER.BACKED").depth(), "it left its queue");
            }
        }
        Set<String> after = new HashSet<>(LockOrder.violations());
        after.removeAll(before);
        assertEquals(Set.of(), after, "a move to another queue while holding a queue's lock takes two QUEUE locks");
    }
}
