package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Persistence} over a real journal: what it is handed that is not stored ({@link StoredMessage#persistent()}
 * false) never becomes a journal record, and callers need not sort messages out themselves.
 */
class PersistenceRuleTest {

    /** A message on queue Q, stored or not. */
    private record Message(long sequence, boolean persistent) implements StoredMessage {
        @Override
        public String queueName() {
            return "Q";
        }

        @Override
        public ByteBuf content() {
            return Unpooled.wrappedBuffer(new byte[]{1, 2, 3});
        }
    }

    @Test
    void onlyStoredMessagesBecomeRecords(@TempDir Path data) throws Exception {
        try (JournalMessageStore journal = StoreHarness.open(StoreHarness.config(data), new StoreHarness.Recovered())) {
            Persistence persistence = new Persistence(journal);
            Message stored = new Message(1, true);
            Message notStored = new Message(2, false);
            long start = journal.records();

            StoreHarness.Done immediate = new StoreHarness.Done();
            persistence.put(notStored, immediate);
            assertTrue(immediate.result.isDone(), "a message that is not stored completes at once");
            persistence.delivered(notStored, 2);
            persistence.putInTransaction(7, notStored);
            persistence.removeInTransaction(7, notStored);
            persistence.remove(notStored);

            StoreHarness.Done put = new StoreHarness.Done();
            persistence.put(stored, put);
            assertNull(put.await());
            assertEquals(start + 1, journal.records(), "only the stored message's PUT was written");

            StoreHarness.Done removed = new StoreHarness.Done();
            persistence.remove(List.of(notStored, stored), removed);
            assertNull(removed.await());
            assertEquals(start + 2, journal.records(), "one REMOVE, of the stored message");

            StoreHarness.Done none = new StoreHarness.Done();
            persistence.remove(List.of(notStored), none);
            assertTrue(none.result.isDone(), "removing only messages that are not stored completes at once");
            assertEquals(start + 2, journal.records());

            // a publication's copies: those on durable subscriptions only, as one record
            StoreHarness.Done noCopy = new StoreHarness.Done();
            persistence.putCopies(List.of(notStored, notStored), noCopy);
            assertTrue(noCopy.result.isDone(), "copies none of which is stored complete at once");
            persistence.putCopiesInTransaction(7, List.of(notStored));
            StoreHarness.Done copies = new StoreHarness.Done();
            persistence.putCopies(List.of(new Message(3, true), notStored, new Message(4, true)), copies);
            assertNull(copies.await());
            assertEquals(start + 3, journal.records(), "one record of the two stored copies");
        }
    }

    @Test
    void countdownCompletesAfterTheLastWithTheFirstFailure() throws Exception {
        StoreHarness.Done done = new StoreHarness.Done();
        StoreCompletion three = Persistence.countdown(3, done);
        IllegalStateException first = new IllegalStateException("first");
        three.completed(null);
        three.completed(first);
        assertTrue(!done.result.isDone(), "two of three");
        three.completed(new IllegalStateException("second"));
        assertSame(first, done.await());
    }
}
