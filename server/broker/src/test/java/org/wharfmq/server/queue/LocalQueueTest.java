package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.InMemoryMessageStore;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LocalQueueTest {

    private final InMemoryMessageStore store = new InMemoryMessageStore();
    private final QueueManager queues = new QueueManager(ServerConfig.defaults(), store, java.time.InstantSource.system());
    private final LocalQueue queue = new LocalQueue("Q", 1_000_000, false, queues.persistence(), queues.deadLetters());

    @AfterEach
    void releaseEverything() {
        queue.clear();
        queues.close();
    }

    @Test
    void higherPriorityFirstAndFifoWithinAPriority() {
        put("a", 4);
        put("b", 9);
        put("c", 0);
        put("d", 9);
        put("e", 4);
        put("f", 0);
        RecordingConsumer consumer = new RecordingConsumer(null, 10);
        queue.addConsumer(consumer);
        assertEquals(List.of("b", "d", "a", "e", "c", "f"), consumer.bodies());
    }

    @Test
    void manyMessagesComeOutInSendOrder() {
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            sent.add("m" + i);
            put("m" + i, 4);
        }
        RecordingConsumer consumer = new RecordingConsumer(null, 1000);
        queue.addConsumer(consumer);
        assertEquals(sent, consumer.bodies());
    }

    @Test
    void waitingConsumerGetsNewMessageHandedOverAndCreditLimitsTheRest() {
        RecordingConsumer consumer = new RecordingConsumer(null, 2);
        queue.addConsumer(consumer);
        assertEquals(List.of(), consumer.received);
        put("1", 4);
        put("2", 4);
        put("3", 4);
        assertEquals(List.of("1", "2"), consumer.bodies());
        assertEquals(2, consumer.flushes, "the queue must flush after each hand-over, outside its lock");
        assertEquals(3, queue.depth(), "delivered but unacknowledged messages count towards the depth");
        queue.addCredit(consumer, 5);
        assertEquals(List.of("1", "2", "3"), consumer.bodies());
    }

    @Test
    void generalConsumersAreServedRoundRobin() {
        RecordingConsumer a = new RecordingConsumer(null, 10);
        RecordingConsumer b = new RecordingConsumer(null, 10);
        RecordingConsumer c = new RecordingConsumer(null, 10);
        queue.addConsumer(a);
        queue.addConsumer(b);
        queue.addConsumer(c);
        for (int i = 0; i < 6; i++) {
            put("m" + i, 4);
        }
        assertEquals(List.of("m0", "m3"), a.bodies());
        assertEquals(List.of("m1", "m4"), b.bodies());
        assertEquals(List.of("m2", "m5"), c.bodies());
    }

    @Test
    void selectorOnPropertiesPicksMatchingMessagesOnly() {
        put("red1", 4, m -> m.properties.put("color", "red"));
        put("blue1", 4, m -> m.properties.put("color", "blue"));
        put("red2", 4, m -> m.properties.put("color", "red"));
        put("none", 4, m -> { });
        RecordingConsumer reds = new RecordingConsumer("color = 'red'", 10);
        queue.addConsumer(reds);
        assertEquals(List.of("red1", "red2"), reds.bodies());
        RecordingConsumer rest = new RecordingConsumer(null, 10);
        queue.addConsumer(rest);
        assertEquals(List.of("blue1", "none"), rest.bodies());
    }

    @Test
    void replyGoesToItsCorrelationConsumerWithoutVisitingAnyOther() {
        List<RecordingConsumer> requesters = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            RecordingConsumer requester = new RecordingConsumer("JMSCorrelationID = 'req-" + i + "'", 1);
            requesters.add(requester);
            queue.addConsumer(requester);
        }
        long before = queue.consumerVisits();
        put("reply-250", 4, m -> m.correlationId = "req-250");
        assertEquals(1, queue.consumerVisits() - before, "only the consumer waiting for req-250 may be examined");
        assertEquals(List.of("reply-250"), requesters.get(250).bodies());
        for (int i = 0; i < requesters.size(); i++) {
            if (i != 250) {
                assertTrue(requesters.get(i).received.isEmpty());
            }
        }

        before = queue.consumerVisits();
        put("nobody-waits", 4, m -> m.correlationId = "req-unknown");
        assertEquals(0, queue.consumerVisits() - before, "no consumer waits for this id, and none may be visited");
    }

    @Test
    void byteCorrelationIdsAreIndexedUnderTheStringSelectorsSee() {
        for (int i = 0; i < 300; i++) {
            byte[] id = {0x0a, (byte) 0xf0, (byte) (i >> 8), (byte) i};
            put("reply-" + i, 4, m -> m.correlationIdBytes = id);
        }
        assertEquals(300, queue.indexedCorrelationIds(), "every byte id must be in the index");
        RecordingConsumer requester = new RecordingConsumer("JMSCorrelationID = 'ID:0af0010e'", 1); // 270 = 0x010e
        queue.addConsumer(requester);
        assertEquals(List.of("reply-270"), requester.bodies());
        assertEquals(299, queue.indexedCorrelationIds(), "the taken reply must leave the index");

        RecordingConsumer waiting = new RecordingConsumer("JMSCorrelationID = 'ID:0af0ffff'", 1);
        queue.addConsumer(waiting);
        long before = queue.consumerVisits();
        put("reply-65535", 4, m -> m.correlationIdBytes = new byte[]{0x0a, (byte) 0xf0, (byte) 0xff, (byte) 0xff});
        assertEquals(1, queue.consumerVisits() - before, "only the consumer waiting for this id may be examined");
        assertEquals(List.of("reply-65535"), waiting.bodies());
    }

    @Test
    void correlationConsumerIsServedFromTheIndexAmongThousandsOfReplies() {
        for (int i = 0; i < 5000; i++) {
            String id = "req-" + i;
            put("reply-" + i, i % 10, m -> m.correlationId = id);
        }
        assertEquals(5000, queue.indexedCorrelationIds());
        RecordingConsumer requester = new RecordingConsumer("JMSCorrelationID = 'req-4321'", 1);
        queue.addConsumer(requester);
        assertEquals(List.of("reply-4321"), requester.bodies());
        assertEquals(4999, queue.indexedCorrelationIds(), "the taken reply must leave the index");

        RecordingConsumer general = new RecordingConsumer(null, 10_000);
        queue.addConsumer(general);
        assertEquals(4999, general.received.size());
        assertEquals(0, queue.indexedCorrelationIds(), "messages taken by a general consumer must leave the index too");
    }

    @Test
    void correlationIndexPrefersHigherPriorityThenOlder() {
        put("low-old", 1, m -> m.correlationId = "X");
        put("high-old", 7, m -> m.correlationId = "X");
        put("other", 9, m -> m.correlationId = "Y");
        put("high-new", 7, m -> m.correlationId = "X");
        RecordingConsumer requester = new RecordingConsumer("JMSCorrelationID = 'X'", 3);
        queue.addConsumer(requester);
        assertEquals(List.of("high-old", "high-new", "low-old"), requester.bodies());
    }

    @Test
    void correlationSelectorWithFurtherConditionsIsStillEvaluated() {
        put("wrong-type", 4, m -> {
            m.correlationId = "X";
            m.type = "a";
        });
        put("right-type", 4, m -> {
            m.correlationId = "X";
            m.type = "b";
        });
        RecordingConsumer requester = new RecordingConsumer("JMSCorrelationID = 'X' AND JMSType = 'b'", 5);
        queue.addConsumer(requester);
        assertEquals(List.of("right-type"), requester.bodies());
    }

    @Test
    void returnedMessagesGoBackToTheirOriginalPositions() {
        for (int i = 1; i <= 5; i++) {
            put("m" + i, 4);
        }
        RecordingConsumer first = new RecordingConsumer(null, 3);
        queue.addConsumer(first);
        assertEquals(List.of("m1", "m2", "m3"), first.bodies());
        queue.removeConsumer(first);

        List<QueuedMessage> back = new ArrayList<>(List.of(first.received.get(2), first.received.get(0), first.received.get(1)));
        first.received.get(1).countRedelivery();
        queue.giveBack(back);

        RecordingConsumer second = new RecordingConsumer(null, 10);
        queue.addConsumer(second);
        assertEquals(List.of("m1", "m2", "m3", "m4", "m5"), second.bodies());
        assertEquals(List.of(1, 2, 1, 1, 1), second.received.stream().map(QueuedMessage::deliveryCount).toList());
    }

    @Test
    void returnedMessageIsHandedToAWaitingConsumer() {
        put("m1", 4);
        RecordingConsumer first = new RecordingConsumer(null, 1);
        queue.addConsumer(first);
        queue.removeConsumer(first);
        RecordingConsumer waiting = new RecordingConsumer(null, 1);
        queue.addConsumer(waiting);
        assertTrue(waiting.received.isEmpty());
        queue.giveBack(new ArrayList<>(first.received));
        assertEquals(List.of("m1"), waiting.bodies());
        assertEquals(1, waiting.flushes);
    }

    @Test
    void fullQueueRefusesWithAMessageNamingQueueLimitAndSetting() {
        LocalQueue small = new LocalQueue("ORDERS", 2, true, queues.persistence(), queues.deadLetters());
        QueuedMessage m1 = message(small, "1", 4, m -> { });
        QueuedMessage m2 = message(small, "2", 4, m -> { });
        QueuedMessage m3 = message(small, "3", 4, m -> { });
        small.reserve(m1);
        small.offer(m1);
        small.reserve(m2);
        small.offer(m2);
        WharfException full = assertThrows(WharfException.class, () -> small.reserve(m3));
        assertEquals(ErrorCode.QUEUE_FULL, full.code());
        assertEquals("Queue 'ORDERS' is full: it holds its maximum depth of 2 messages (setting maxDepth of queue"
                + " 'ORDERS'). Consume messages or raise the limit.", full.getMessage());

        RecordingConsumer consumer = new RecordingConsumer(null, 1);
        small.addConsumer(consumer);
        assertEquals(2, small.depth(), "a delivered message still counts until acknowledged");
        small.acknowledge(consumer.received.get(0));
        small.reserve(m3);
        assertEquals(2, small.depth());
        small.cancel(m3);
        small.clear();
    }

    /**
     * An ACK's run of one queue's messages, settled under one acquisition of the lock, leaves the queue as
     * acknowledging each would: out of the depth, counted as dequeued, released, their bytes given back to the
     * budget (which lets the producer held back go), and the messages outside the run untouched.
     */
    @Test
    void aRunOfAcknowledgedMessagesLeavesTheQueueAsEachWouldAndLetsTheHeldProducerGo() {
        LocalQueue run = queues.defineQueue(QueueDefinition.named("RUN"));
        for (int i = 0; i < 5; i++) {
            QueuedMessage m = message(run, "m" + i, 4, wire -> { });
            run.reserve(m);
            run.offer(m);
        }
        RecordingConsumer consumer = new RecordingConsumer(null, 5);
        run.addConsumer(consumer);
        List<QueuedMessage> delivered = consumer.received;
        assertEquals(5, delivered.size());
        long held = run.heldBytes();
        queues.alterQueue("RUN", Map.of("maxBytes", Long.toString(held), "policy", "block"));
        int[] released = {0};
        run.whenUnderBudget(() -> released[0]++);
        assertEquals(1, run.producersHeldBack());

        run.acknowledge(delivered, 1, 4);

        assertEquals(2, run.depth(), "the run's three messages left the depth, the other two stay");
        assertEquals(3, run.snapshot().dequeued());
        long runBytes = delivered.get(1).memoryBytes() + delivered.get(2).memoryBytes() + delivered.get(3).memoryBytes();
        assertEquals(held - runBytes, run.heldBytes(), "the run's bytes are given back, no more");
        assertEquals(1, released[0], "back under its budget: the held producer goes, once");
        assertEquals(0, run.producersHeldBack());
        for (int i = 1; i < 4; i++) {
            assertEquals(0, delivered.get(i).content().refCnt(), "acknowledged message m" + i + " released");
        }
        assertEquals(1, delivered.get(0).content().refCnt(), "m0 is outside the run");
        assertEquals(1, delivered.get(4).content().refCnt(), "m4 is outside the run");
        run.acknowledge(delivered, 0, 1);
        run.acknowledge(delivered.get(4));
        assertEquals(0, run.depth());
        assertEquals(0, run.heldBytes());
    }

    @Test
    void queueWithoutItsOwnLimitNamesTheServerWideSetting() {
        LocalQueue small = new LocalQueue("Q2", 1, false, queues.persistence(), queues.deadLetters());
        QueuedMessage m1 = message(small, "1", 4, m -> { });
        small.reserve(m1);
        WharfException full = assertThrows(WharfException.class, () -> small.reserve(message(small, "2", 4, m -> { })));
        assertTrue(full.getMessage().contains("(setting maxQueueDepth)"), full.getMessage());
        small.cancel(m1);
    }

    @Test
    void expiredMessagesAreNeverDeliveredAndLeaveTheDepth() {
        long past = System.currentTimeMillis() - 1;
        put("expired-on-arrival", 4, m -> m.expiration = past);
        assertEquals(0, queue.depth());

        long soon = System.currentTimeMillis() + 20;
        put("expires-soon", 9, m -> m.expiration = soon);
        put("lives", 4, m -> { });
        assertEquals(2, queue.depth());
        while (System.currentTimeMillis() <= soon) {
            Thread.onSpinWait(); // waiting for the clock, not for another thread
        }
        RecordingConsumer consumer = new RecordingConsumer(null, 10);
        queue.addConsumer(consumer);
        assertEquals(List.of("lives"), consumer.bodies());
        assertEquals(1, queue.depth());
    }

    @Test
    void pullDeliversOneMessageWithoutCreditAndSpendsCredit() {
        put("m1", 4);
        put("m2", 4);
        RecordingConsumer consumer = new RecordingConsumer(null, 0);
        queue.addConsumer(consumer);
        assertTrue(consumer.received.isEmpty());
        assertTrue(queue.pull(consumer));
        assertEquals(List.of("m1"), consumer.bodies());
        assertEquals(-1, consumer.window().credit());
        queue.addCredit(consumer, 1); // the client returns credit for the pulled message
        assertEquals(List.of("m1"), consumer.bodies(), "credit back to 0 must not push");
        assertTrue(queue.pull(consumer));
        assertFalse(queue.pull(consumer), "the queue is empty");
        assertEquals(List.of("m1", "m2"), consumer.bodies());
    }

    @Test
    void suspendedConsumerGetsNothingUntilResumed() {
        RecordingConsumer consumer = new RecordingConsumer(null, 3);
        queue.addConsumer(consumer);
        queue.suspend(consumer);
        put("m1", 4);
        assertTrue(consumer.received.isEmpty());
        queue.resume(consumer);
        assertEquals(List.of("m1"), consumer.bodies());
        assertEquals(2, consumer.window().credit());
    }

    @Test
    void aWaitingMessageASelectorCannotDecodeGoesToTheDeadLetterQueueAndTheConsumerGetsTheNextOne() {
        QueuedMessage bad = undecodable();
        byte[] original = TestMessages.bytes(bad.content());
        queue.reserve(bad);
        queue.offer(bad);
        put("good", 4, m -> m.properties.put("color", "red"));

        RecordingConsumer selecting = new RecordingConsumer("color = 'red'", 10);
        queue.addConsumer(selecting);

        assertEquals(List.of("good"), selecting.bodies(), "the undecodable message matches no selector");
        assertEquals(1, queue.depth(), "only the delivered good message is left on the queue");
        assertDeadLettered(original, "a message selector cannot decode its properties: property 1 of 1 ('color') "
                + "has unknown type tag 0x7f");
    }

    @Test
    void aNewMessageASelectorCannotDecodeNeverReachesTheWaitingConsumers() {
        RecordingConsumer selecting = new RecordingConsumer("color = 'red'", 10);
        RecordingConsumer other = new RecordingConsumer("JMSPriority > 2", 10); // would match on headers alone
        queue.addConsumer(selecting);
        queue.addConsumer(other);
        QueuedMessage bad = undecodable();
        byte[] original = TestMessages.bytes(bad.content());
        queue.reserve(bad);
        queue.offer(bad);

        assertTrue(selecting.received.isEmpty() && other.received.isEmpty(), "nobody gets the undecodable message");
        assertEquals(0, queue.depth());
        assertDeadLettered(original, "has unknown type tag 0x7f");
    }

    /** A message whose headers were read while it was intact, then its property 'color' got an unknown tag. */
    private QueuedMessage undecodable() {
        WireMessage wire = TestMessages.text(queue.name(), "bad");
        wire.properties.put("color", "red");
        ByteBuf content = TestMessages.encode(wire);
        MessageHeaders headers = MessageHeaders.read(content);
        TestMessages.setPropertyTag(content, "color", 0x7f);
        return new QueuedMessage(queue, content, headers);
    }

    private void assertDeadLettered(byte[] original, String reason) {
        RecordingConsumer deadLetters = new RecordingConsumer(null, 10);
        queues.deadLetterQueue().addConsumer(deadLetters);
        assertEquals(1, deadLetters.received.size(), "one dead letter");
        WireMessage letter = WireMessage.decode(deadLetters.received.get(0).content().duplicate());
        assertArrayEquals(original, letter.body, "the dead letter's body is the original message, unchanged");
        assertEquals("ID:test-bad", letter.messageId);
        assertEquals(Boolean.TRUE, letter.properties.get(DeadLetters.WRAPPED_PROPERTY));
        assertEquals("Q", letter.properties.get(DeadLetters.QUEUE_PROPERTY));
        String why = (String) letter.properties.get(DeadLetters.REASON_PROPERTY);
        assertTrue(why.contains(reason), why);
        assertEquals(DeadLetters.UNDECODABLE, letter.properties.get(DeadLetters.REASON_CODE_PROPERTY));
        assertEquals(letter.timestamp, letter.properties.get(DeadLetters.TIME_PROPERTY), "when it was moved");
        assertEquals(1, queue.snapshot().deadLettered(), "counted as dead-lettered, not as dequeued");
        assertEquals(0, queue.snapshot().dequeued());
    }

    @Test
    void theDropPolicyDropsTheLowestPriorityFirstThenTheOldestAndNeverAPersistentMessage() {
        LocalQueue sameName = new LocalQueue("SYSTEM.SUB.N1", 1, false, queues.persistence(), queues.deadLetters());
        long oneMessage = message(sameName, "x", 4, m -> { }).memoryBytes(); // the length of every one below
        LocalQueue subscription = LocalQueue.subscription("SYSTEM.SUB.N1", 100, queues.persistence(), false,
                queues.deadLetters(), java.time.InstantSource.system(),
                new MemoryLimit(3 * oneMessage, org.wharfmq.server.config.MemoryPolicy.DROP, "subscription", "test",
                        MemoryLimit.PageLimit.NONE),
                MemoryBudget.unlimited(), null);
        String[] bodies = {"a", "b", "c", "d", "e", "f"};
        int[] priorities = {4, 0, 4, 9, 4, 4};
        for (int i = 0; i < bodies.length; i++) {
            boolean persistent = bodies[i].equals("c");
            QueuedMessage m = message(subscription, bodies[i], priorities[i], w -> w.persistent = persistent);
            assertEquals(LocalQueue.Admission.RESERVED, subscription.reserveCopy(m));
            subscription.offer(m);
            assertTrue(subscription.heldBytes() <= 3 * oneMessage);
        }
        // d came: b (priority 0) dropped; e came: a (oldest of priority 4) dropped; f came: c is persistent, so e goes
        assertEquals(3, subscription.dropped());
        RecordingConsumer consumer = new RecordingConsumer(null, 10);
        subscription.addConsumer(consumer);
        assertEquals(List.of("d", "c", "f"), consumer.bodies());
        subscription.clear();
    }

    // ---- helpers ----

    private void put(String body, int priority) {
        put(body, priority, m -> { });
    }

    private void put(String body, int priority, Consumer<WireMessage> customizer) {
        QueuedMessage m = message(queue, body, priority, customizer);
        queue.reserve(m);
        queue.offer(m);
    }

    private QueuedMessage message(LocalQueue target, String body, int priority, Consumer<WireMessage> customizer) {
        WireMessage wire = TestMessages.text(target.name(), body);
        wire.priority = priority;
        customizer.accept(wire);
        ByteBuf content = TestMessages.encode(wire);
        QueuedMessage m = new QueuedMessage(target, content, MessageHeaders.read(content));
        return m;
    }

    static String body(QueuedMessage m) {
        return TestMessages.body(m.content());
    }
}
