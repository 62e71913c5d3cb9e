package org.wharfmq.server.replication;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The submitting thread merges the batches that arrive while Ratis takes an entry into the next entry, in order,
 * and sends a batch too large for one entry alone.
 */
class BatchSubmitterTest {

    private static final ByteString HEADER = BatchEntry.header("a");
    private static final long WAIT_SECONDS = 30;

    /** The entries handed to "Ratis", in order, and each one's future. */
    private final BlockingQueue<ByteString> entries = new LinkedBlockingQueue<>();
    private final BlockingQueue<CompletableFuture<Long>> commits = new LinkedBlockingQueue<>();
    private final BlockingQueue<ByteBuffer> pieces = new LinkedBlockingQueue<>();
    /** Holds the first entry's hand-over, as Ratis's client executor does, until the test lets it go. */
    private final CountDownLatch ratisTakesTheFirst = new CountDownLatch(1);
    private final CountDownLatch firstHandedOver = new CountDownLatch(1);
    private final BatchSubmitter submitter = new BatchSubmitter(HEADER, entry -> {
        entries.add(entry);
        firstHandedOver.countDown();
        await(ratisTakesTheFirst);
        CompletableFuture<Long> committed = new CompletableFuture<>();
        commits.add(committed);
        return committed;
    }, batch -> {
        pieces.add(batch);
        return CompletableFuture.completedFuture(99L);
    }, () -> new NotActiveException("closed", null));

    @AfterEach
    void close() {
        ratisTakesTheFirst.countDown();
        submitter.close();
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(WAIT_SECONDS, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static ByteBuffer records(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(4 + bytes.length).putInt(bytes.length).put(bytes).flip();
    }

    private static String text(ByteString entry) {
        ByteBuffer records = BatchEntry.records(entry);
        StringBuilder out = new StringBuilder();
        while (records.hasRemaining()) {
            byte[] record = new byte[records.getInt()];
            records.get(record);
            out.append(new String(record, StandardCharsets.US_ASCII)).append(' ');
        }
        return out.toString().trim();
    }

    @Test
    void theBatchesAppendedWhileRatisTakesAnEntryGoInTheNextOneInOrder() throws Exception {
        CompletableFuture<Long> first = submitter.submit(records("one"));
        assertTrue(firstHandedOver.await(WAIT_SECONDS, TimeUnit.SECONDS));
        CompletableFuture<Long> second = submitter.submit(records("two"));
        CompletableFuture<Long> third = submitter.submit(records("three"));
        ratisTakesTheFirst.countDown();

        assertEquals("one", text(entries.poll(WAIT_SECONDS, TimeUnit.SECONDS)));
        assertEquals("two three", text(entries.poll(WAIT_SECONDS, TimeUnit.SECONDS)),
                "both batches that waited travel in one entry, in the order appended");
        CompletableFuture<Long> firstEntry = commits.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        CompletableFuture<Long> secondEntry = commits.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(secondEntry);
        secondEntry.complete(8L);
        assertEquals(8L, second.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(8L, third.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertFalse(first.isDone(), "each batch is confirmed by its own entry's commit");
        firstEntry.complete(7L);
        assertEquals(7L, first.get(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void aBatchLargerThanAnEntryGoesAloneInPiecesBetweenTheOthers() throws Exception {
        submitter.submit(records("one"));
        assertTrue(firstHandedOver.await(WAIT_SECONDS, TimeUnit.SECONDS));
        CompletableFuture<Long> before = submitter.submit(records("two"));
        ByteBuffer large = ByteBuffer.allocate(ReplicationConfiguration.MAX_BATCH_BYTES + 1);
        CompletableFuture<Long> inPieces = submitter.submit(large);
        CompletableFuture<Long> after = submitter.submit(records("three"));
        ratisTakesTheFirst.countDown();

        assertEquals("one", text(entries.poll(WAIT_SECONDS, TimeUnit.SECONDS)));
        assertEquals("two", text(entries.poll(WAIT_SECONDS, TimeUnit.SECONDS)), "not merged with what follows it");
        assertEquals(large.capacity(), pieces.poll(WAIT_SECONDS, TimeUnit.SECONDS).remaining());
        assertEquals(99L, inPieces.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals("three", text(entries.poll(WAIT_SECONDS, TimeUnit.SECONDS)));
        assertFalse(before.isDone() || after.isDone());
    }

    @Test
    void aBatchAfterTheCloseFailsNamingIt() throws Exception {
        ratisTakesTheFirst.countDown();
        submitter.close();
        CompletableFuture<Long> late = submitter.submit(records("late"));
        java.util.concurrent.ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class, () -> late.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertInstanceOf(NotActiveException.class, failed.getCause());
        assertEquals(List.of(), List.copyOf(entries));
    }
}
