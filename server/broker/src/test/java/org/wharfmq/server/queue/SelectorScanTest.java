package org.wharfmq.server.queue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.InMemoryMessageStore;

import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A consumer with a selector finds its matches among a queue's paged messages (QueuePaging's scans): from where it
 * stopped when its credit ran out, and, once it has looked at them all, among the messages as they are paged; a long
 * scan takes turns with the paging thread's other work. Each step is checked once the paging thread has done what it
 * was asked ({@link #settle}).
 */
class SelectorScanTest {

    private final InMemoryMessageStore store = new InMemoryMessageStore();
    private final QueueManager queues = new QueueManager(ServerConfig.defaults(), store, InstantSource.system());
    @TempDir
    Path pagingDirectory;
    private Pager pager;
    private LocalQueue queue;

    @AfterEach
    void releaseEverything() {
        queue.clear();
        pager.close();
        queues.close();
    }

    @Test
    void aScanThatRunsOutOfCreditGoesOnWhereItStoppedLookingAtEachPagedMessageOnce() throws Exception {
        pagingQueue();
        List<String> kinds = new ArrayList<>();
        for (int n = 0; n < 20; n++) {
            kinds.add(n % 4 == 1 ? "B" : "A");
            put("p" + n, kinds.get(n));
        }
        settle();
        assertEquals(20, queue.paged());

        RecordingConsumer kindB = new RecordingConsumer("kind = 'B'", 2);
        queue.addConsumer(kindB);
        settle();
        assertEquals(List.of("p1", "p5"), kindB.bodies(), "the oldest two paged matches");
        assertEquals(6, queue.recordsScanned(), "up to the second match, and no further");

        queue.addCredit(kindB, 10);
        settle();
        assertEquals(List.of("p1", "p5", "p9", "p13", "p17"), kindB.bodies());
        assertEquals(20, queue.recordsScanned(), "each paged message looked at once");
        assertEquals(15, queue.paged());

        acknowledge(kindB.received);
        RecordingConsumer all = new RecordingConsumer(null, 100);
        queue.addConsumer(all);
        List<String> drained = drain(all, 18);
        List<String> rest = new ArrayList<>(List.of("m0", "m1", "m2"));
        for (int n = 0; n < 20; n++) {
            if (kinds.get(n).equals("A")) {
                rest.add("p" + n);
            }
        }
        assertEquals(rest, drained, "the others in order, the matches taken out of it");
    }

    @Test
    void aCaughtUpConsumerGetsItsMatchAsItIsPagedOrLooksForItOnceItHasCreditAgain() throws Exception {
        pagingQueue();
        for (int n = 0; n < 10; n++) {
            put("p" + n, "A");
        }
        settle();
        RecordingConsumer kindB = new RecordingConsumer("kind = 'B'", 1);
        queue.addConsumer(kindB);
        settle();
        assertEquals(10, queue.recordsScanned(), "one pass, finding nothing");

        put("b1", "B");
        assertEquals(List.of("b1"), kindB.bodies(), "handed over as it came: no paged message is older for it");
        assertEquals(10, queue.paged());

        put("a1", "A"); // checked as it is paged, so its scan moves past it once it is written
        settle();
        put("b2", "B"); // it has no credit: paged, and its scan must look again
        put("a2", "A");
        settle();
        assertEquals(13, queue.paged());
        queue.addCredit(kindB, 1);
        settle();
        assertEquals(List.of("b1", "b2"), kindB.bodies());
        assertEquals(11, queue.recordsScanned(), "from where it was caught up: b2");
        queue.addCredit(kindB, 1);
        settle();
        assertEquals(12, queue.recordsScanned(), "a2, then nothing more to look at");
        assertEquals(List.of("b1", "b2"), kindB.bodies());
    }

    @Test
    void aRequesterWaitingForItsReplyGoesBeforeACaughtUpSelectorThatAcceptsTheReplyToo() throws Exception {
        pagingQueue();
        for (int n = 0; n < 5; n++) {
            put("p" + n, "A");
        }
        settle();
        RecordingConsumer kindR = new RecordingConsumer("kind = 'R'", 10);
        queue.addConsumer(kindR);
        RecordingConsumer requester = new RecordingConsumer("JMSCorrelationID = 'r1'", 1);
        queue.addConsumer(requester);
        settle();
        assertEquals(5, queue.recordsScanned(), "caught up");

        put("reply1", "R", "r1");
        settle();
        assertEquals(List.of("reply1"), requester.bodies(), "the requester first, as on a queue that does not page");
        assertEquals(List.of(), kindR.bodies());
        put("reply2", "R", "r2"); // nobody waits for r2
        assertEquals(List.of("reply2"), kindR.bodies(), "caught up again, so handed over as it came");
        assertEquals(5, queue.paged());
    }

    @Test
    void aScanReadsAtMostATurnsBytesThenLetsOtherWorkOfThePagingThreadGoFirst() throws Exception {
        pagingQueue();
        String body = "x".repeat(1000);
        int count = 3 * PagedLookups.SCAN_TURN_BYTES / 1000; // about three turns' worth
        for (int n = 0; n < count; n++) {
            put(body + n, "A");
        }
        settle();
        // the paging thread is held while the consumer's scan and then this test's barrier are queued, so the barrier
        // runs right after the scan's first turn and before the turn that turn queues for the rest (unheld, a slow
        // test thread let the paging thread run several turns before the barrier was queued: CI, under load)
        CountDownLatch held = new CountDownLatch(1);
        pager.execute(() -> {
            try {
                held.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        queue.addConsumer(new RecordingConsumer("kind = 'Z'", 10));
        // read on the paging thread, between the first turn and the next: read once the barrier had run, a slow test
        // thread let the next turns run first (session 37, at load 15: 2480 of 3145 looked at)
        AtomicLong scannedInFirstTurn = new AtomicLong();
        pager.execute(() -> scannedInFirstTurn.set(queue.recordsScanned()));
        held.countDown();
        settle();
        long firstTurn = scannedInFirstTurn.get();
        assertTrue(firstTurn > 0 && firstTurn < count / 2, () -> "looked at " + firstTurn + " of " + count);
        for (int turns = 0; queue.recordsScanned() < count && turns < 100; turns++) {
            settle();
        }
        assertEquals(count, queue.recordsScanned(), "one pass over them all, in turns");
        settle();
        assertEquals(count, queue.recordsScanned(), "then nothing more: it waits for new paged messages");
    }

    /**
     * A paging queue with room for three messages in memory ("m0" to "m2", kind A): everything put after them is
     * paged.
     */
    private void pagingQueue() {
        pager = new Pager(pagingDirectory, MemoryBudget.unlimited());
        queue = PagingQueues.threeInMemory(queues, pager, "m0", "A", MemoryLimit.PageLimit.NONE);
        for (int n = 0; n < 3; n++) {
            put("m" + n, "A");
        }
        assertEquals(0, queue.paged());
    }

    private void put(String body, String kind) {
        put(body, kind, null);
    }

    private void put(String body, String kind, String correlationId) {
        QueuedMessage m = PagingQueues.message(queue, body, kind, correlationId);
        queue.reserve(m);
        queue.offer(m);
    }

    /**
     * Waits until the paging thread has run everything queued so far: the turns the queue asked for, each of which
     * writes all there is to write and lets the scans read up to a turn's bytes (more than all the paged messages here,
     * so a whole pass, unless credit runs out).
     */
    private void settle() throws InterruptedException {
        PagingQueues.settle(pager);
    }

    /**
     * Acknowledges what {@code consumer} receives until it has {@code count} messages, read back by the paging thread
     * as the acknowledgements take the queue under its low watermark.
     *
     * @return their bodies, in the order received
     */
    private List<String> drain(RecordingConsumer consumer, int count) throws InterruptedException {
        List<String> bodies = new ArrayList<>();
        for (int rounds = 0; bodies.size() < count && rounds < 1000; rounds++) {
            settle(); // nothing is delivered to it meanwhile: the list may be read
            List<QueuedMessage> received = List.copyOf(consumer.received);
            List<QueuedMessage> fresh = received.subList(bodies.size(), received.size());
            fresh.forEach(m -> bodies.add(LocalQueueTest.body(m)));
            acknowledge(fresh);
        }
        assertEquals(count, bodies.size());
        return bodies;
    }

    private void acknowledge(List<QueuedMessage> messages) {
        List.copyOf(messages).forEach(queue::acknowledge);
    }
}
