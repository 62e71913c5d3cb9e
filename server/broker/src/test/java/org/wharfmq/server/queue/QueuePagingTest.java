package org.wharfmq.server.queue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.InMemoryMessageStore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A queue's paging (QueuePaging, on a real Pager and page files in a temporary directory): what does not fit the
 * queue's memory budget is paged, counted in the depth and against the disk budgets, and read back in order as the
 * consumer acknowledges; nothing overtakes a paged message; the queue's own disk budget refuses (pageFullPolicy fail)
 * or holds producers back (block) until messages are read back; a deleted queue's paged messages leave the budgets
 * and its page files go; page files that cannot be written stop the queue's paging without losing a message
 * ({@link PagingDiskFailure}) until they can. Selectors among paged messages: {@link SelectorScanTest}. Each step is
 * checked once the paging thread has done what it was asked ({@link #settle}).
 */
class QueuePagingTest {

    /** The JMSTimestamp of the first message of the tests that stamp theirs. */
    private static final long FIRST_TIMESTAMP = 1_700_000_000_000L;

    private final InMemoryMessageStore store = new InMemoryMessageStore();
    private final QueueManager queues = new QueueManager(ServerConfig.defaults(), store, InstantSource.system());
    @TempDir
    Path pagingDirectory;
    private Pager pager;
    private LocalQueue queue;
    private long oneMessage;

    @AfterEach
    void releaseEverything() {
        queue.clear();
        pager.close();
        queues.close();
    }

    @Test
    void whatIsOverTheBudgetIsPagedAndReadBackInOrderAsTheConsumerAcknowledges() throws Exception {
        pagingQueue(MemoryLimit.PageLimit.NONE);
        List<String> sent = put(20);
        settle();
        assertEquals(20, queue.depth(), "paged messages count in the depth");
        assertEquals(17, queue.paged(), "three fit the budget");
        assertTrue(queue.heldBytes() <= 3 * oneMessage, "memory held " + queue.heldBytes());
        assertTrue(queue.pagedBytes() > 0);
        assertEquals(queue.pagedBytes(), pager.diskBudget().usedBytes(), "counted against the server's disk budget");

        RecordingConsumer consumer = new RecordingConsumer(null, 100);
        queue.addConsumer(consumer);
        assertEquals(sent, drain(consumer, 20));
        assertEquals(0, queue.paged());
        assertEquals(0, queue.pagedBytes());
        assertEquals(0, pager.diskBudget().usedBytes());
        assertEquals(0, queue.depth());
    }

    @Test
    void aNewMessageWaitsBehindThePagedOnesEvenWhenAConsumerHasCredit() throws Exception {
        pagingQueue(MemoryLimit.PageLimit.NONE);
        List<String> sent = put(10);
        settle();
        // with m02 handed over nothing waits in memory, so the paging thread is asked to read back: it is held
        // meanwhile, so what the consumer holds, and what is paged, is read before it acts
        CountDownLatch release = holdPagingThread();
        RecordingConsumer consumer = new RecordingConsumer(null, 100);
        queue.addConsumer(consumer);
        assertEquals(List.of("m00", "m01", "m02"), consumer.bodies(), "those in memory at once");

        sent.add(put("new"));
        assertEquals(List.of("m00", "m01", "m02"), consumer.bodies(), "not handed over ahead of the paged ones");
        assertEquals(8, queue.paged(), "paged behind them");
        release.countDown();
        assertEquals(sent, drain(consumer, 11));
    }

    @Test
    void theQueuesOwnDiskBudgetWithPolicyFailRefusesWhatWouldBePaged() throws Exception {
        long twoRecords = 2 * (oneMessageRecordBytes());
        pagingQueue(new MemoryLimit.PageLimit(twoRecords, MemoryPolicy.FAIL, "setting maxPageBytes of queue 'PAGED'"));
        put(5); // three in memory, two paged: the disk budget is spent
        settle();
        assertEquals(2, queue.paged());
        WharfException refused = assertThrows(WharfException.class, () -> put("one"));
        assertEquals(ErrorCode.QUEUE_FULL, refused.code());
        assertTrue(refused.getMessage().startsWith("The disk budget of queue 'PAGED' is spent: it holds "
                + twoRecords + " bytes of paged messages and may hold " + twoRecords
                + " (setting maxPageBytes of queue 'PAGED')"), refused.getMessage());
        assertEquals(5, queue.depth(), "nothing taken");
    }

    @Test
    void withPolicyBlockASpentDiskBudgetHoldsProducersBackUntilPagedMessagesAreReadBack() throws Exception {
        pagingQueue(new MemoryLimit.PageLimit(2 * oneMessageRecordBytes(), MemoryPolicy.BLOCK,
                "setting maxPageBytes of queue 'PAGED'"));
        List<String> sent = put(6); // accepted: block refuses nothing, it holds the producer's credit back
        settle();
        assertTrue(queue.blocksProducers());
        AtomicInteger resumed = new AtomicInteger();
        queue.whenUnderBudget(resumed::incrementAndGet);
        assertEquals(0, resumed.get(), "held back");
        assertEquals(1, queue.producersHeldBack());

        RecordingConsumer consumer = new RecordingConsumer(null, 100);
        queue.addConsumer(consumer);
        assertEquals(sent, drain(consumer, 6));
        assertFalse(queue.blocksProducers());
        assertEquals(1, resumed.get(), "resumed once the paged messages were read back");
    }

    @Test
    void aDeletedQueuesPagedMessagesLeaveTheBudgetsAndItsPageFilesGo() throws Exception {
        pagingQueue(MemoryLimit.PageLimit.NONE);
        put(20);
        settle();
        assertTrue(pageFiles() > 0, "written to disk");

        assertEquals(20, queue.delete(), "every message discarded, on disk or not");
        settle();
        assertEquals(0, queue.depth());
        assertEquals(0, queue.paged());
        assertEquals(0, queue.heldBytes());
        assertEquals(0, pager.diskBudget().usedBytes());
        assertEquals(0, pageFiles(), "its page files deleted");
    }

    @Test
    void pageFilesThatCannotBeWrittenKeepWhatTheQueueTookRefuseSendsSayingWhyAndPagingGoesOnOnceTheyCan()
            throws Exception {
        // the failure is real: a file stands where the page files' directory is to be made
        Path inTheWay = Files.writeString(pagingDirectory.resolve("disk"), "not a directory");
        pagingQueue(inTheWay.resolve("paging"), new MemoryLimit.PageLimit(0, MemoryPolicy.FAIL, "none of its own"));
        // the paging thread held until the five are put: a write that failed before the fifth put would refuse it
        CountDownLatch release = holdPagingThread();
        List<String> sent = put(5); // three in memory, two to be paged: their write fails
        release.countDown();
        settle();
        String failure = queue.pagingFailure();
        assertTrue(failure != null && failure.contains("Cannot write the paging file"), "the failure: " + failure);
        assertEquals(5, queue.depth(), "what the queue took it keeps");
        assertEquals(2, queue.paged(), "waiting in memory, counted as paged");

        WharfException refused = assertThrows(WharfException.class, () -> put("m05"));
        assertEquals(ErrorCode.QUEUE_FULL, refused.code());
        assertTrue(refused.getMessage().startsWith("queue 'PAGED' cannot page: its page files cannot be written or"
                + " read now"), refused.getMessage());
        assertFalse(refused.getMessage().contains(pagingDirectory.toString()), "a client is not shown the disk");
        assertEquals(5, queue.depth(), "nothing taken");

        Files.delete(inTheWay); // the disk takes the files again: the next retry pages
        for (long deadline = System.nanoTime() + 10_000_000_000L; queue.pagingFailure() != null; ) {
            assertTrue(System.nanoTime() < deadline, "paging works again within 10 s (it retries every "
                    + org.wharfmq.server.Configuration.PAGE_RETRY_MILLIS + " ms)");
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000); // the retry is the paging thread's timer
            settle();
        }
        sent.add(put("m05"));
        RecordingConsumer consumer = new RecordingConsumer(null, 100);
        queue.addConsumer(consumer);
        assertEquals(sent, drain(consumer, 6), "nothing lost, nothing out of order");
        assertNull(queue.pagingFailure());
    }

    /**
     * The paging thread's write-behind is bounded: a queue whose messages waiting to be written pass an eighth of the
     * server's memory budget holds its producers back until they are written. Senders to a paging queue are not held
     * back by the server's spent budget (ProducerWindow), so without this a producer faster than the disk filled memory.
     */
    @Test
    void producersAreHeldBackWhileTheWriteBehindIsPastItsBoundAndWokenOnceItIsWritten() throws Exception {
        long budgetBytes = 800_000;
        pagingEverything(1, new MemoryBudget(budgetBytes, "test"));
        CountDownLatch release = holdPagingThread(); // the disk is slower than the producer: nothing written meanwhile
        int sent = 0;
        while (!queue.blocksProducers()) {
            put(String.format("m%05d", sent++));
            assertTrue(sent < 100_000, "the producers are never held back");
        }
        long bound = budgetBytes / 8;
        assertTrue(queue.pagedBytes() > bound && queue.pagedBytes() < bound + 1024, "held back once the write-behind"
                + " passes " + bound + " bytes, not before: " + queue.pagedBytes());
        AtomicBoolean woken = new AtomicBoolean();
        queue.whenUnderBudget(() -> woken.set(true));
        assertFalse(woken.get(), "a producer waits while the write-behind is past its bound");

        release.countDown();
        settle();
        assertTrue(woken.get(), "woken once the paging thread has written it");
        assertFalse(queue.blocksProducers());
        assertEquals(sent, queue.depth(), "nothing refused or lost");
    }

    /**
     * A paging queue nobody consumes from keeps its paged messages on disk: once the paging thread has written them it
     * holds nothing in memory and reads nothing back (before, a queue that held nothing read a batch back at once, for
     * nobody, holding the server's budget with it), and its oldest waiting message is still the oldest paged one. The
     * first consumer to come has them read back and gets every one, in order.
     */
    @Test
    void aQueueNobodyConsumesFromReadsNothingBackAndItsFirstConsumerGetsEveryPagedMessageInOrder() throws Exception {
        MemoryBudget budget = new MemoryBudget(1_000_000, "test");
        long othersHold = budget.shareBytes();
        BudgetUse.add(budget, othersHold); // other queues hold three quarters of the server's budget: PAGED pages all
        pagingEverything(0, budget);
        List<String> sent = new ArrayList<>();
        for (int n = 0; n < 50; n++) {
            sent.add(put(String.format("m%02d", n), FIRST_TIMESTAMP + n));
        }
        settle();
        assertEquals(50, queue.paged(), "every message paged, none read back for nobody");
        assertEquals(0, queue.heldBytes(), "nothing in memory once written");
        assertEquals(othersHold, budget.usedBytes(), "none of the server's budget held for it");
        assertEquals(FIRST_TIMESTAMP, queue.snapshot().oldestTimestamp(), "the oldest waiting message is on disk");

        RecordingConsumer consumer = new RecordingConsumer(null, 100);
        queue.addConsumer(consumer); // its arrival has the paging thread read back: nothing else would
        assertEquals(sent, drain(consumer, 50));
        assertEquals(0, queue.paged());
        assertEquals(0, queue.snapshot().oldestTimestamp(), "nothing waits");
    }

    /**
     * A consumer without credit (one that only PULLs, as receive() without prefetch does) has paged messages read back
     * too; once it has left, the queue reads none more back: what nobody took stays on disk, and the next consumer
     * gets it, in order.
     */
    @Test
    void aConsumerWithoutCreditHasPagedMessagesReadBackAndNoneMoreAreOnceItLeaves() throws Exception {
        // its own budget is smaller than one message: each is paged, and a read-back takes one
        pagingEverything(1, MemoryBudget.unlimited());
        List<String> sent = put(5);
        settle();
        assertEquals(5, queue.paged());

        RecordingConsumer pulling = new RecordingConsumer(null, 0);
        queue.addConsumer(pulling);
        settle();
        assertTrue(queue.pull(pulling), "a message read back for it");
        assertEquals(List.of("m00"), pulling.bodies());
        settle(); // with m00 delivered nothing waits: the next one is read back for its next pull
        long left = queue.paged();
        queue.removeConsumer(pulling);
        queue.acknowledge(pulling.received.get(0));
        settle();
        assertEquals(left, queue.paged(), "nothing read back once it left");

        RecordingConsumer consumer = new RecordingConsumer(null, 100);
        queue.addConsumer(consumer);
        assertEquals(sent.subList(1, 5), drain(consumer, 4), "the rest, in order");
    }

    // ---- helpers ----

    /**
     * Queue PAGED, paging every message it takes: its own memory budget is {@code ownBytes} (0: none), and the
     * server's is {@code budget}.
     */
    private void pagingEverything(long ownBytes, MemoryBudget budget) {
        pager = new Pager(pagingDirectory, MemoryBudget.unlimited());
        queue = LocalQueue.defined("PAGED", 1_000_000, false, queues.persistence(), queues.deadLetters(),
                InstantSource.system(), new MemoryLimit(ownBytes, MemoryPolicy.PAGE, "queue 'PAGED'", "test",
                        MemoryLimit.PageLimit.NONE), budget, pager);
    }

    /** Holds the paging thread (it does nothing else) until the latch returned is counted down. */
    private CountDownLatch holdPagingThread() throws InterruptedException {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        pager.execute(() -> {
            holding.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        holding.await();
        return release;
    }

    /** A paging queue with room for three messages in memory: everything put after them is paged. */
    private void pagingQueue(MemoryLimit.PageLimit disk) {
        pagingQueue(pagingDirectory, disk);
    }

    /** {@link #pagingQueue(MemoryLimit.PageLimit)}, its page files in {@code directory}. */
    private void pagingQueue(Path directory, MemoryLimit.PageLimit disk) {
        pager = new Pager(directory, MemoryBudget.unlimited());
        queue = PagingQueues.threeInMemory(queues, pager, "m00", null, disk);
        QueuedMessage m = PagingQueues.message(queue, "m00", null, null);
        oneMessage = m.memoryBytes();
        m.release();
    }

    /** The bytes one message's record takes in the page files (and the disk budgets). */
    private long oneMessageRecordBytes() {
        LocalQueue sizing = new LocalQueue("PAGED", 1, false, queues.persistence(), queues.deadLetters());
        QueuedMessage m = PagingQueues.message(sizing, "m00", null, null);
        long bytes = PageStore.recordBytes(m);
        m.release();
        return bytes;
    }

    /** Puts "m00" .. "m{count-1}": every body of one length, as every other body here. */
    private List<String> put(int count) {
        List<String> bodies = new ArrayList<>();
        for (int n = 0; n < count; n++) {
            bodies.add(put(String.format("m%02d", n)));
        }
        return bodies;
    }

    private String put(String body) {
        return put(body, 0);
    }

    /** Puts a message with the JMSTimestamp {@code timestamp} (0: none). */
    private String put(String body, long timestamp) {
        QueuedMessage m = PagingQueues.message(queue, body, null, null, timestamp);
        queue.reserve(m);
        queue.offer(m);
        return body;
    }

    private void settle() throws InterruptedException {
        PagingQueues.settle(pager);
    }

    /** Acknowledges what {@code consumer} receives until it has {@code count}, as the paging thread reads them back. */
    private List<String> drain(RecordingConsumer consumer, int count) throws InterruptedException {
        List<String> bodies = new ArrayList<>();
        int acknowledged = 0;
        for (int rounds = 0; bodies.size() < count && rounds < 1000; rounds++) {
            settle();
            List<QueuedMessage> received = List.copyOf(consumer.received);
            for (QueuedMessage m : received.subList(acknowledged, received.size())) {
                bodies.add(LocalQueueTest.body(m));
                queue.acknowledge(m);
            }
            acknowledged = received.size();
        }
        assertEquals(count, bodies.size());
        return bodies;
    }

    private long pageFiles() throws IOException {
        if (!Files.exists(pagingDirectory)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(pagingDirectory)) {
            return files.filter(Files::isRegularFile).count();
        }
    }
}
