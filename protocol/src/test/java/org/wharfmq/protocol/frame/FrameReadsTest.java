package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection's reads take what Netty's adaptive allocator guesses until the connection is known to carry a stream
 * of messages ({@link FrameReads#readAtLeast}: a channel from another queue manager), then at least the floor given,
 * and still more when the guess grows past it.
 */
class FrameReadsTest {

    private static final int FLOOR = 16 * 1024;

    @Test
    void aReadTakesTheGuessUntilAFloorIsSetThenAtLeastTheFloorAndMoreWhenTheGuessIsMore() {
        FrameReads reads = new FrameReads(new AdaptiveRecvByteBufAllocator(64, 2048, 64 * 1024));
        RecvByteBufAllocator.Handle handle = reads.newHandle();
        assertEquals(2048, capacityOfARead(handle), "Netty's first guess");

        reads.readAtLeast(FLOOR);
        assertEquals(FLOOR, capacityOfARead(handle), "the floor, above the guess");

        handle.attemptedBytesRead(FLOOR);
        handle.lastBytesRead(FLOOR); // a read that filled its buffer: the guess grows past the floor
        handle.readComplete();
        int guess = handle.guess();
        assertTrue(guess > FLOOR, "the guess grew: " + guess);
        assertEquals(guess, capacityOfARead(handle), "the guess, above the floor");
    }

    private static int capacityOfARead(RecvByteBufAllocator.Handle handle) {
        ByteBuf read = handle.allocate(PooledByteBufAllocator.DEFAULT);
        try {
            return read.capacity();
        } finally {
            read.release();
        }
    }
}
