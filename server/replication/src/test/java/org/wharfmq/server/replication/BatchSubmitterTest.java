package org.wharfmq.server.replication;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The submitting thread keeps {@link ReplicationConfiguration#ENTRIES_IN_FLIGHT} entry uncommitted: the batches that
 * arrive meanwhile go into the next entry, in order, once it commits or fails; a batch too large for one entry goes
 * alone, in pieces.
 */
class BatchSubmitterTest {

    private static final ByteString HEADER = BatchEntry.header("a");
    private static final long WAIT_SECONDS = 30;

    /** The entries handed to "Ratis", in order, and each one's future, which the test completes as the commit. */
    private final BlockingQueue<ByteString> entries = new LinkedBlockingQueue<>();
    private final BlockingQueue<CompletableFuture<Long>> commits = new LinkedBlockingQueue<>();
    private final BlockingQueue<ByteBuffer> pieces = new LinkedBlockingQueue<>();
    private final BlockingQueue<CompletableFuture<Long>> pieceCommits = new LinkedBlockingQueue<>();
    private final BatchSubmitter submitter = new BatchSubmitter(HEADER, ReplicationConfiguration.ENTRIES_IN_FLIGHT,
            entry -> {
                CompletableFuture<Long> committed = new CompletableFuture<>();
                commits.add(committed);
                entries.add(entry);
                return committed;
            }, batch -> {
                CompletableFuture<Long> committed = new CompletableFuture<>();
                pieceCommits.add(committed);
                pieces.add(batch);
                return committed;
            }, () -> new NotActiveException("closed", null));

    @AfterEach
    void close() {
        submitter.close();
    }

    private static ByteBuffer records(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(4 + bytes.length).putInt(bytes.length).put(bytes).flip();
    }

    private static String text(ByteString entry) {
        assertNotNull(entry, "no entry handed over in time");
        ByteBuffer records = BatchEntry.records(entry);
        StringBuilder out = new StringBuilder();
        while (records.hasRemaining()) {
            byte[] record = new byte[records.getInt()];
            records.get(record);
            out.append(new String(record, StandardCharsets.US_ASCII)).append(' ');
        }
        return out.toString().trim();
    }

    private String nextEntry() throws InterruptedException {
        return text(entries.poll(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    private CompletableFuture<Long> nextCommit() throws InterruptedException {
        CompletableFuture<Long> commit = commits.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(commit, "no entry handed over in time");
        return commit;
    }

    @Test
    void theBatchesAppendedWhileAnEntryIsUncommittedGoInTheNextOneInOrderOnceItCommits() throws Exception {
        CompletableFuture<Long> first = submitter.submit(records("one"));
        assertEquals("one", nextEntry());
        CompletableFuture<Long> firstEntry = nextCommit();
        CompletableFuture<Long> second = submitter.submit(records("two"));
        CompletableFuture<Long> third = submitter.submit(records("three"));
        firstEntry.complete(7L);
        assertEquals(7L, first.get(WAIT_SECONDS, TimeUnit.SECONDS));

        assertEquals("two three", nextEntry(), "the batches that waited for the commit travel in one entry, in order");
        assertFalse(second.isDone() || third.isDone(), "each batch is confirmed by its own entry's commit");
        nextCommit().complete(8L);
        assertEquals(8L, second.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(8L, third.get(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void aFailedEntryFailsItsBatchesAndTheNextEntryGoesAll() throws Exception {
        CompletableFuture<Long> first = submitter.submit(records("one"));
        assertEquals("one", nextEntry());
        CompletableFuture<Long> firstEntry = nextCommit();
        CompletableFuture<Long> second = submitter.submit(records("two"));
        firstEntry.completeExceptionally(new NotActiveException("not the leader", null));

        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> first.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertInstanceOf(NotActiveException.class, failed.getCause());
        assertEquals("two", nextEntry(), "the failure gave the entry's place back");
        nextCommit().complete(9L);
        assertEquals(9L, second.get(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void aBatchLargerThanAnEntryGoesAloneInPiecesBetweenTheOthers() throws Exception {
        submitter.submit(records("one"));
        assertEquals("one", nextEntry());
        CompletableFuture<Long> firstEntry = nextCommit();
        CompletableFuture<Long> before = submitter.submit(records("two"));
        ByteBuffer large = ByteBuffer.allocate(ReplicationConfiguration.MAX_BATCH_BYTES + 1);
        CompletableFuture<Long> inPieces = submitter.submit(large);
        CompletableFuture<Long> after = submitter.submit(records("three"));
        firstEntry.complete(1L);

        assertEquals("two", nextEntry(), "not merged with what follows it");
        nextCommit().complete(2L);
        ByteBuffer handed = pieces.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(handed);
        assertEquals(large.capacity(), handed.remaining());
        pieceCommits.poll(WAIT_SECONDS, TimeUnit.SECONDS).complete(99L);
        assertEquals(99L, inPieces.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals("three", nextEntry());
        assertEquals(2L, before.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertFalse(after.isDone());
    }

    @Test
    void aBatchAfterTheCloseFailsNamingIt() throws Exception {
        submitter.close();
        CompletableFuture<Long> late = submitter.submit(records("late"));
        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> late.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertInstanceOf(NotActiveException.class, failed.getCause());
        assertEquals(List.of(), List.copyOf(entries));
    }
}
