package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.LockOrder;
import org.wharfmq.server.OrderedLock;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.InMemoryMessageStore;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link QueueAdmission}, through the queue it belongs to: whether a message about to be reserved is taken, by the
 * depth limit and each memory policy, what a refusal says, that a refused message takes nothing, and that the drop
 * policy's drops count as drops (not as expiries). Every message here has the same length ({@link #oneMessage}).
 */
class QueueAdmissionTest {

    /** A queue's name as long as a subscription's ({@code SYSTEM.SUB.N1}): its messages are as long. */
    private static final String NAME = "ORDERS.QUEUE1";
    private static final String OWNER = "queue '" + NAME + "'";
    private static final String SETTING = "setting maxBytes of " + OWNER;

    private final InMemoryMessageStore store = new InMemoryMessageStore();
    private final QueueManager queues = new QueueManager(ServerConfig.defaults(), store, InstantSource.system());
    private final List<LocalQueue> made = new ArrayList<>();
    /** The memory of one message here: every one has a one-letter body and a destination of the same length. */
    private final long oneMessage = sizing();

    @AfterEach
    void releaseEverything() {
        made.forEach(LocalQueue::clear);
        queues.close();
    }

    @Test
    void theDepthLimitRefusesASendNamingItAndAnswersFullForACopyTakingNothing() {
        LocalQueue queue = queue(2, MemoryLimit.none(OWNER));
        put(queue, "a", false);
        put(queue, "b", false);
        WharfException full = assertThrows(WharfException.class, () -> put(queue, "c", false));
        assertEquals(ErrorCode.QUEUE_FULL, full.code());
        assertEquals("Queue 'ORDERS.QUEUE1' is full: it holds its maximum depth of 2 messages (setting maxDepth of"
                + " queue 'ORDERS.QUEUE1'). Consume messages or raise the limit.", full.getMessage());
        assertEquals(2, queue.depth(), "nothing taken");

        LocalQueue subscription = subscription(2, new MemoryLimit(0, MemoryPolicy.BLOCK, "subscription", "none",
                MemoryLimit.PageLimit.NONE));
        assertEquals(LocalQueue.Admission.RESERVED, copy(subscription, "a", false));
        assertEquals(LocalQueue.Admission.RESERVED, copy(subscription, "b", false));
        QueuedMessage third = message(subscription, "c", false);
        assertEquals(LocalQueue.Admission.FULL, subscription.reserveCopy(third));
        third.release();
        assertEquals(2, subscription.depth());
        assertEquals("Queue 'SYSTEM.SUB.N1' is full: it holds its maximum depth of 2 messages (setting"
                + " maxQueueDepth). Consume messages or raise the limit.", subscription.depthRefusal().getMessage());
    }

    @Test
    void policyFailRefusesWhatDoesNotFitItsBudgetNamingTheBudgetAndTheSetting() {
        LocalQueue queue = queue(100, new MemoryLimit(2 * oneMessage, MemoryPolicy.FAIL, OWNER, SETTING,
                MemoryLimit.PageLimit.NONE));
        put(queue, "a", false);
        put(queue, "b", false);
        WharfException refused = assertThrows(WharfException.class, () -> put(queue, "c", false));
        assertEquals(ErrorCode.QUEUE_FULL, refused.code());
        assertEquals("The memory budget of queue 'ORDERS.QUEUE1' is spent: it holds " + 2 * oneMessage + " bytes of"
                + " messages and may hold " + 2 * oneMessage + " (setting maxBytes of queue 'ORDERS.QUEUE1'); this"
                + " message needs " + oneMessage + " more, and its policy, " + MemoryPolicy.FAIL + ", refuses it."
                + " Consume its messages or raise the budget.", refused.getMessage());
        assertEquals(2, queue.depth(), "nothing taken");
        assertEquals(2 * oneMessage, queue.heldBytes());
    }

    @Test
    void policyBlockTakesWhatDoesNotFitAndHoldsItsProducersBackInstead() {
        LocalQueue queue = queue(100, new MemoryLimit(2 * oneMessage, MemoryPolicy.BLOCK, OWNER, SETTING,
                MemoryLimit.PageLimit.NONE));
        put(queue, "a", false);
        assertFalse(queue.blocksProducers());
        put(queue, "b", false);
        put(queue, "c", false);
        assertEquals(3, queue.depth(), "taken over the budget");
        assertTrue(queue.overBudget());
        assertTrue(queue.blocksProducers(), "its producers' credit is withheld instead");
    }

    /**
     * A queue whose policy keeps its messages in memory holds at most the server's share of its budget (75 %), with
     * no budget of its own or one larger than that: fail refuses past it, naming the share, the setting and the fix;
     * block holds its producers back there, while the server's budget still has room for others (its consumers'
     * sends among them: BlockQueueForwardingTest).
     */
    @Test
    void aQueueThatKeepsItsMessagesInMemoryHoldsAtMostTheServersShareWhateverItsOwnBudget() {
        MemoryBudget server = new MemoryBudget(100 * oneMessage, "setting maxMemoryBytes");
        LocalQueue failing = queue(1000, new MemoryLimit(0, MemoryPolicy.FAIL, OWNER, "none of its own",
                MemoryLimit.PageLimit.NONE), server);
        for (int i = 0; i < 75; i++) {
            put(failing, "a", false);
        }
        WharfException refused = assertThrows(WharfException.class, () -> put(failing, "b", false));
        assertEquals(ErrorCode.QUEUE_FULL, refused.code());
        assertEquals("The memory budget of queue 'ORDERS.QUEUE1' is spent: it holds " + 75 * oneMessage + " bytes of"
                + " messages and may hold " + 75 * oneMessage + " (75 % of the server's memory budget of "
                + 100 * oneMessage + " bytes (setting maxMemoryBytes), the most one queue that keeps its messages in"
                + " memory may hold); this message needs " + oneMessage + " more, and its policy, " + MemoryPolicy.FAIL
                + ", refuses it. Consume its messages, raise maxMemoryBytes, or give it the policy page to keep what"
                + " is past the share on disk.", refused.getMessage());
        assertTrue(server.hasRoomFor(oneMessage), "the server's budget has room for others");

        MemoryBudget other = new MemoryBudget(100 * oneMessage, "setting maxMemoryBytes");
        LocalQueue blocking = queue(1000, new MemoryLimit(200 * oneMessage, MemoryPolicy.BLOCK, OWNER, SETTING,
                MemoryLimit.PageLimit.NONE), other);
        for (int i = 0; i < 74; i++) {
            put(blocking, "a", false);
        }
        assertFalse(blocking.blocksProducers());
        put(blocking, "a", false);
        assertTrue(blocking.overBudget() && blocking.blocksProducers(), "held back at the share, under its own budget");
        assertFalse(other.spent());
    }

    @Test
    void policyDropDropsTheOldestNonPersistentCopiesCountedAsDroppedNotAsExpired() {
        LocalQueue subscription = subscription(100, new MemoryLimit(3 * oneMessage, MemoryPolicy.DROP,
                "subscription", "test", MemoryLimit.PageLimit.NONE));
        for (String body : List.of("a", "b", "c", "d", "e")) {
            assertEquals(LocalQueue.Admission.RESERVED, copy(subscription, body, false));
        }
        assertEquals(2, subscription.dropped());
        assertEquals(0, subscription.snapshot().expired(), "a dropped message has not expired");
        assertEquals(3, subscription.depth(), "the dropped ones left the depth");
        assertEquals(3 * oneMessage, subscription.heldBytes(), "and the budget");
        RecordingConsumer consumer = new RecordingConsumer(null, 10);
        subscription.addConsumer(consumer);
        assertEquals(List.of("c", "d", "e"), consumer.bodies());
        consumer.received.forEach(subscription::acknowledge);
    }

    @Test
    void policyDropDropsTheNewestNonPersistentCopyWhenNothingElseCanGoAndRefusesAPersistentOne() {
        LocalQueue subscription = subscription(100, new MemoryLimit(2 * oneMessage, MemoryPolicy.DROP,
                "subscription", "test", MemoryLimit.PageLimit.NONE));
        assertEquals(LocalQueue.Admission.RESERVED, copy(subscription, "a", true));
        assertEquals(LocalQueue.Admission.RESERVED, copy(subscription, "b", true));

        QueuedMessage newest = message(subscription, "c", false);
        assertEquals(LocalQueue.Admission.DROPPED, subscription.reserveCopy(newest), "persistent ones never drop");
        newest.release();
        assertEquals(1, subscription.dropped(), "the newest is the one dropped");

        QueuedMessage persistent = message(subscription, "d", true);
        WharfException refused = assertThrows(WharfException.class, () -> subscription.reserveCopy(persistent));
        persistent.release();
        assertEquals(ErrorCode.QUEUE_FULL, refused.code());
        assertTrue(refused.getMessage().startsWith("The memory budget of subscription is spent"), refused.getMessage());
        assertEquals(2, subscription.depth());
        assertEquals(1, subscription.dropped(), "a refusal is no drop");
    }

    @Test
    void itRunsUnderTheQueuesLockAndFailsItsAssertionWithout() {
        OrderedLock lock = new OrderedLock(LockOrder.Rank.QUEUE, OWNER);
        // the assertion comes before anything is read: no part is needed to see it fail
        QueueAdmission admission = new QueueAdmission(null, lock, null, null, null);
        LocalQueue queue = queue(10, MemoryLimit.none(OWNER));
        QueuedMessage m = message(queue, "a", false);
        assertThrows(AssertionError.class, () -> admission.admit(m));
        assertThrows(AssertionError.class, () -> admission.admitCopy(m));
        m.release();
    }

    // ---- helpers ----

    /** Queue {@value #NAME} with the depth limit {@code maxDepth} of its own and {@code limit}. */
    private LocalQueue queue(long maxDepth, MemoryLimit limit) {
        return queue(maxDepth, limit, MemoryBudget.unlimited());
    }

    /** Queue {@value #NAME} as {@link #queue(long, MemoryLimit)} makes it, counting against the server's {@code budget}. */
    private LocalQueue queue(long maxDepth, MemoryLimit limit, MemoryBudget budget) {
        LocalQueue queue = LocalQueue.defined(NAME, maxDepth, true, queues.persistence(), queues.deadLetters(),
                InstantSource.system(), limit, budget, null);
        made.add(queue);
        return queue;
    }

    private LocalQueue subscription(long maxDepth, MemoryLimit limit) {
        LocalQueue subscription = LocalQueue.subscription("SYSTEM.SUB.N1", maxDepth, queues.persistence(), false,
                queues.deadLetters(), InstantSource.system(), limit, MemoryBudget.unlimited(), null);
        made.add(subscription);
        return subscription;
    }

    private void put(LocalQueue queue, String body, boolean persistent) {
        QueuedMessage m = message(queue, body, persistent);
        try {
            queue.reserve(m);
        } catch (WharfException e) {
            m.release();
            throw e;
        }
        queue.offer(m);
    }

    private LocalQueue.Admission copy(LocalQueue subscription, String body, boolean persistent) {
        QueuedMessage m = message(subscription, body, persistent);
        LocalQueue.Admission admission = subscription.reserveCopy(m);
        if (admission == LocalQueue.Admission.RESERVED) {
            subscription.offer(m);
        } else {
            m.release();
        }
        return admission;
    }

    /** A one-letter text message: every message here has the same length. */
    private static QueuedMessage message(LocalQueue target, String body, boolean persistent) {
        WireMessage wire = TestMessages.text(target.name(), body);
        wire.persistent = persistent;
        ByteBuf content = TestMessages.encode(wire);
        return new QueuedMessage(target, content, MessageHeaders.read(content));
    }

    private long sizing() {
        LocalQueue sizing = new LocalQueue("SYSTEM.SUB.N1", 1, false, queues.persistence(), queues.deadLetters());
        QueuedMessage m = message(sizing, "x", false);
        long bytes = m.memoryBytes();
        m.release();
        return bytes;
    }
}
