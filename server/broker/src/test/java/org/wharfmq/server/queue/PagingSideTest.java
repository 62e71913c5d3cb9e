package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.LockOrder;
import org.wharfmq.server.OrderedLock;
import org.wharfmq.server.TestClock;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.InMemoryMessageStore;

import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link PagingSide}, the queue as its paging sees it, on a real {@link Pager} and page files: what is written to
 * disk lets its memory go and what is read back holds it again; a message that expired on disk is discarded when read
 * back, counted as expired, never delivered; every method that touches the queue's state asserts the queue's lock.
 * Each step is checked once the paging thread has done what it was asked ({@link PagingQueues#settle}).
 */
class PagingSideTest {

    private final InMemoryMessageStore store = new InMemoryMessageStore();
    private final QueueManager queues = new QueueManager(ServerConfig.defaults(), store, InstantSource.system());
    private final TestClock clock = new TestClock();
    @TempDir
    Path pagingDirectory;
    private Pager pager;
    private LocalQueue queue;
    private long oneMessage;

    @AfterEach
    void releaseEverything() {
        if (queue != null) {
            queue.clear();
            pager.close();
        }
        queues.close();
    }

    @Test
    void whatIsWrittenLetsItsMemoryGoAndWhatIsReadBackHoldsItAgain() throws Exception {
        pagingQueue();
        for (int n = 0; n < 10; n++) {
            put("m" + n, 0);
        }
        PagingQueues.settle(pager);
        assertEquals(7, queue.paged(), "three fit the budget");
        assertEquals(3 * oneMessage, queue.heldBytes(), "the seven written hold no memory");

        assertTrue(queue.readBackNow());
        long readBack = 7 - queue.paged();
        assertTrue(readBack > 0, "a batch read back");
        assertEquals((3 + readBack) * oneMessage, queue.heldBytes(), "what is read back is held again");
        assertEquals(10, queue.depth(), "in the depth all along");
    }

    @Test
    void aPagedMessageThatExpiredOnDiskIsDiscardedWhenReadBackNeverDelivered() throws Exception {
        pagingQueue();
        for (int n = 0; n < 3; n++) {
            put("kept" + n, 0); // in memory: no expiry
        }
        for (int n = 0; n < 5; n++) {
            put("gone" + n, clock.millis() + 1_000); // paged
        }
        PagingQueues.settle(pager);
        assertEquals(5, queue.paged());
        clock.advance(2_000);

        RecordingConsumer consumer = new RecordingConsumer(null, 100);
        queue.addConsumer(consumer);
        List<String> delivered = new ArrayList<>();
        // the paging thread may read the expired ones back (and discard them) as soon as the kept ones are delivered
        // and nothing else waits in memory: collect until nothing is paged and every delivery is counted
        for (int rounds = 0; rounds < 100; rounds++) {
            List<QueuedMessage> received = List.copyOf(consumer.received);
            for (QueuedMessage m : received.subList(delivered.size(), received.size())) {
                delivered.add(LocalQueueTest.body(m));
                queue.acknowledge(m); // under the low watermark: the paging thread reads back
            }
            PagingQueues.settle(pager);
            if (queue.paged() == 0 && delivered.size() == consumer.received.size()) {
                break;
            }
        }
        assertEquals(List.of("kept0", "kept1", "kept2"), delivered, "no expired message delivered");
        assertEquals(3, consumer.received.size());
        assertEquals(0, queue.paged());
        assertEquals(5, queue.snapshot().expired(), "each counted as expired");
        assertEquals(0, queue.depth());
        assertEquals(0, pager.diskBudget().usedBytes());
    }

    @Test
    void everyMethodThatTouchesTheQueuesStateAssertsItsLock() {
        OrderedLock lock = new OrderedLock(LockOrder.Rank.QUEUE, "queue 'PAGED'");
        // each assertion comes before anything is read: no part is needed to see it fail
        PagingSide side = new PagingSide(null, lock, clock, null);
        LocalQueue target = new LocalQueue("PAGED", 10, false, queues.persistence(), queues.deadLetters());
        QueuedMessage m = PagingQueues.message(target, "m", null, "ID:1");
        assertThrows(AssertionError.class, side::bytesHeld);
        assertThrows(AssertionError.class, side::hasConsumers);
        assertThrows(AssertionError.class, () -> side.awaitsCorrelationId("ID:1"));
        assertThrows(AssertionError.class, () -> side.waitsWithCredit("ID:1"));
        assertThrows(AssertionError.class, () -> side.hold(m));
        assertThrows(AssertionError.class, () -> side.offerReadBack(m, null));
        assertThrows(AssertionError.class, () -> side.letGo(1));
        assertThrows(AssertionError.class, side::pageFullEnded);
        m.release();
    }

    // ---- helpers ----

    /** Queue PAGED on the test's clock, paging past three messages in memory, its page files in the test's directory. */
    private void pagingQueue() {
        pager = new Pager(pagingDirectory, MemoryBudget.unlimited());
        LocalQueue sizing = new LocalQueue("PAGED", 1, false, queues.persistence(), queues.deadLetters());
        QueuedMessage m = message(sizing, "m0", 0);
        oneMessage = m.memoryBytes();
        m.release();
        queue = LocalQueue.defined("PAGED", 1_000, false, queues.persistence(), queues.deadLetters(), clock,
                new MemoryLimit(3 * oneMessage + 1, MemoryPolicy.PAGE, "queue 'PAGED'", "test",
                        MemoryLimit.PageLimit.NONE), MemoryBudget.unlimited(), pager);
    }

    private void put(String body, long expiration) {
        QueuedMessage m = message(queue, body, expiration);
        queue.reserve(m);
        queue.offer(m);
    }

    /**
     * A non-persistent text message that expires at {@code expiration} (0: never), its body as long as every other
     * body here.
     */
    private static QueuedMessage message(LocalQueue target, String body, long expiration) {
        WireMessage wire = TestMessages.text(target.name(), (body + "____").substring(0, 5));
        wire.persistent = false;
        wire.expiration = expiration;
        ByteBuf content = TestMessages.encode(wire);
        return new QueuedMessage(target, content, MessageHeaders.read(content));
    }
}
