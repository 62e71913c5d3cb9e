package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The arena's copies: a message longer than the first region, but short enough to share one, still fits one. */
class CompactionArenaTest {

    @Test
    void aMessageLongerThanTheFirstRegionIsCopiedIntoALargerOne() {
        CompactionArena arena = new CompactionArena(PooledByteBufAllocator.DEFAULT);
        int length = CompactionArena.MIN_REGION_BYTES + 500;
        assertTrue(length <= CompactionArena.MAX_SHARED_BYTES, "one that shares a region");
        ByteBuf original = PooledByteBufAllocator.DEFAULT.directBuffer(2 * length);
        for (int i = 0; i < length; i++) {
            original.writeByte(i);
        }
        ByteBuf copy = arena.copy(original);
        try {
            assertEquals(length, copy.readableBytes());
            assertTrue(ByteBufUtil.equals(original, copy));
            ByteBuf next = arena.copy(original.slice(0, 10)); // the region goes on being used
            assertEquals(10, next.readableBytes());
            next.release();
        } finally {
            copy.release();
            original.release();
            arena.release();
        }
    }
}
