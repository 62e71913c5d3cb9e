package org.wharfmq.server.store;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The journal writer's inbox: only an entry somebody waits for wakes a writer sleeping after a batch; the entries
 * nobody waits for come along with it, in arrival order; and a writer idle past its brief sleep is woken by any entry,
 * so none is left unwritten.
 */
@Timeout(60)
class JournalInboxTest {

    /** Bounds a hang only: a loaded machine is slow. */
    private static final long EXPECTED_SECONDS = 30;

    private final BlockingQueue<List<JournalEntry>> batches = new LinkedBlockingQueue<>();
    private Thread writer;

    /** A writer thread taking batches from {@code inbox} as the journal writer does. */
    private void startWriter(JournalInbox inbox) {
        writer = new Thread(() -> {
            try {
                while (true) {
                    List<JournalEntry> batch = new ArrayList<>();
                    inbox.takeInto(batch, 4096);
                    batches.add(batch);
                }
            } catch (InterruptedException e) {
                // the test is over
            }
        }, "journal-inbox-test-writer");
        writer.setDaemon(true);
        writer.start();
    }

    @AfterEach
    void stopWriter() throws InterruptedException {
        if (writer != null) {
            writer.interrupt();
            writer.join();
        }
    }

    private static JournalEntry quiet(long tx) {
        return JournalEntry.marker(JournalRecord.ROLLBACK, tx, StoreCompletion.NONE);
    }

    private static JournalEntry awaited(long tx) {
        return JournalEntry.marker(JournalRecord.COMMIT, tx, failure -> { });
    }

    private List<JournalEntry> nextBatch() throws InterruptedException {
        List<JournalEntry> batch = batches.poll(EXPECTED_SECONDS, TimeUnit.SECONDS);
        assertNotNull(batch, "the writer took nothing within " + EXPECTED_SECONDS + " s");
        return batch;
    }

    /** Waits until the writer sleeps in {@code state}: a barrier on the thread itself, not a time. */
    private void awaitSleeping(Thread.State state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(EXPECTED_SECONDS);
        while (writer.getState() != state) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the writer did not go to sleep (" + writer.getState() + ")");
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void entriesNobodyWaitsForWakeNoWriterSleepingAfterABatchAndComeAlongWithOneThatDoes() throws Exception {
        JournalInbox inbox = new JournalInbox(TimeUnit.HOURS.toNanos(1)); // its brief sleep outlasts the test
        startWriter(inbox);
        JournalEntry first = awaited(1);
        inbox.add(first);
        assertEquals(List.of(first), nextBatch());
        awaitSleeping(Thread.State.TIMED_WAITING); // its brief sleep after a batch
        long wakes = inbox.wakes();

        JournalEntry delivered = quiet(2);
        JournalEntry acknowledged = quiet(3);
        inbox.add(delivered);
        inbox.add(acknowledged);
        assertEquals(wakes, inbox.wakes(), "an entry nobody waits for asks for no wake of a writer after a batch");

        JournalEntry commit = awaited(4);
        inbox.add(commit);
        assertEquals(wakes + 1, inbox.wakes(), "an entry somebody waits for wakes it");
        assertEquals(List.of(delivered, acknowledged, commit), nextBatch(),
                "one batch, in arrival order: a sync for the commit covers what came before it");
    }

    @Test
    void anEntryNobodyWaitsForIsTakenWithinTheBriefSleepWhenNoOtherComes() throws Exception {
        JournalInbox inbox = new JournalInbox(TimeUnit.MILLISECONDS.toNanos(1));
        startWriter(inbox);
        inbox.add(awaited(1));
        nextBatch();
        JournalEntry delivered = quiet(2);
        inbox.add(delivered); // during the brief sleep or after it: taken either way, alone
        assertEquals(List.of(delivered), nextBatch());
    }

    @Test
    void aWriterIdlePastItsBriefSleepIsWokenByAnEntryNobodyWaitsFor() throws Exception {
        JournalInbox inbox = new JournalInbox(TimeUnit.MILLISECONDS.toNanos(1));
        startWriter(inbox);
        awaitSleeping(Thread.State.WAITING); // idle: its brief sleep ended with nothing to take
        long wakes = inbox.wakes();
        JournalEntry delivered = quiet(1);
        inbox.add(delivered);
        assertEquals(wakes + 1, inbox.wakes(), "an idle writer is woken by any entry");
        assertEquals(List.of(delivered), nextBatch());
    }
}
