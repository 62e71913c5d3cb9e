package org.wharfmq.server.replication;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pieces of a batch, cut as the active member cuts them, joined as a member joins them: whole or not at all. */
class ChunkJoinerTest {

    private static final int LIMIT = 1000;
    private final ChunkJoiner joiner = new ChunkJoiner("b", LIMIT, "maxMessageLength 936 and 64 bytes of record");

    @Test
    void piecesInOrderGiveTheBatchWholeAtTheLastOnlyAndCountAsNothingPendingAfter() {
        byte[] batch = bytes(950);
        List<ByteString> pieces = pieces("a", batch, 300);
        assertEquals(4, pieces.size());
        for (int i = 0; i < 3; i++) {
            assertFalse(joiner.offer(5, "a", pieces.get(i), true), "piece " + i + " completed the batch");
            assertTrue(joiner.pending(), "a snapshot would be taken inside the batch");
            assertEquals(300 * (i + 1), joiner.pendingBytes());
        }
        assertTrue(joiner.offer(5, "a", pieces.get(3), true));
        ByteBuffer whole = joiner.take();
        byte[] joined = new byte[whole.remaining()];
        whole.get(joined);
        assertArrayEquals(batch, joined);
        assertFalse(joiner.pending());
        assertEquals(0, joiner.pendingBytes());
        assertEquals(0, joiner.dropped());
    }

    @Test
    void aBatchThisMemberDoesNotKeepIsFollowedToItsEndWithoutItsBytes() {
        List<ByteString> pieces = pieces("b", bytes(500), 200);
        assertFalse(joiner.offer(1, "b", pieces.get(0), false));
        assertFalse(joiner.offer(1, "b", pieces.get(1), true)); // read at the first piece only
        assertTrue(joiner.offer(1, "b", pieces.get(2), true));
        assertNull(joiner.take());
        assertFalse(joiner.pending());
    }

    @Test
    void aNewTermDropsTheBatchUnderWayAndItsLaterPiecesAreDroppedToo() {
        List<ByteString> pieces = pieces("a", bytes(900), 300);
        joiner.offer(3, "a", pieces.get(0), true);
        joiner.newTerm(3); // a change of members in the same term: the batch goes on
        assertTrue(joiner.pending());
        joiner.offer(3, "a", pieces.get(1), true);
        joiner.newTerm(4); // the next leader's first entry
        assertFalse(joiner.pending());
        assertEquals(1, joiner.dropped());
        // a piece without its first (the log never holds one; were it there): dropped, not applied
        assertFalse(joiner.offer(3, "a", pieces.get(2), true));
        assertFalse(joiner.pending());
        assertThrows(IllegalStateException.class, joiner::take);
    }

    @Test
    void aBatchOfOneEntryOrAnotherFirstPieceEndsTheBatchUnderWayUnfinished() {
        List<ByteString> first = pieces("a", bytes(600), 300);
        joiner.offer(2, "a", first.get(0), true);
        joiner.interrupt();
        assertFalse(joiner.pending());
        assertEquals(1, joiner.dropped());

        joiner.offer(2, "a", first.get(0), true);
        byte[] second = bytes(400);
        List<ByteString> next = pieces("a", second, 300);
        assertFalse(joiner.offer(2, "a", next.get(0), true));
        assertEquals(2, joiner.dropped());
        assertTrue(joiner.offer(2, "a", next.get(1), true));
        assertEquals(400, joiner.take().remaining());
    }

    @Test
    void aPieceOfAnotherOriginOrOffsetDropsTheBatchUnderWay() {
        byte[] batch = bytes(900);
        List<ByteString> fromA = pieces("a", batch, 300);
        List<ByteString> fromC = pieces("c", batch, 300);
        joiner.offer(2, "a", fromA.get(0), true);
        assertFalse(joiner.offer(2, "c", fromC.get(1), true));
        assertFalse(joiner.pending());
        joiner.offer(2, "a", fromA.get(0), true);
        assertFalse(joiner.offer(2, "a", fromA.get(2), true)); // the second piece is missing
        assertFalse(joiner.pending());
        assertEquals(2, joiner.dropped());
    }

    @Test
    void aBatchAboveThisMembersLimitIsRefusedNamingBothMembersTheLimitAndTheFix() {
        List<ByteString> pieces = pieces("a", bytes(LIMIT + 1), 300);
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> joiner.offer(1, "a", pieces.get(0), true));
        assertTrue(refused.getMessage().contains("member b was sent a batch of 1001 bytes by member a"),
                refused.getMessage());
        assertTrue(refused.getMessage().contains("limit of 1000 bytes (maxMessageLength 936"), refused.getMessage());
        assertTrue(refused.getMessage().contains("Give every member the same maxMessageLength"), refused.getMessage());
    }

    @Test
    void theEntryFormatCarriesOriginLengthOffsetAndBytes() {
        byte[] batch = bytes(10);
        ByteString piece = BatchEntry.chunk("member-x", 25, 15, ByteBuffer.wrap(batch));
        assertTrue(BatchEntry.isChunk(piece));
        assertFalse(BatchEntry.isFile(piece));
        assertEquals("member-x", BatchEntry.origin(piece));
        assertEquals(25, BatchEntry.chunkTotal(piece));
        assertEquals(15, BatchEntry.chunkOffset(piece));
        byte[] read = new byte[10];
        BatchEntry.chunkBytes(piece).get(read);
        assertArrayEquals(batch, read);
    }

    /** {@code batch} cut as {@link ReplicatedLog} cuts it, in pieces of {@code size}. */
    private static List<ByteString> pieces(String origin, byte[] batch, int size) {
        List<ByteString> pieces = new ArrayList<>();
        for (int offset = 0; offset < batch.length; offset += size) {
            pieces.add(BatchEntry.chunk(origin, batch.length, offset,
                    ByteBuffer.wrap(batch, offset, Math.min(size, batch.length - offset))));
        }
        return pieces;
    }

    private static byte[] bytes(int n) {
        byte[] bytes = new byte[n];
        new Random(n).nextBytes(bytes);
        return bytes;
    }
}
