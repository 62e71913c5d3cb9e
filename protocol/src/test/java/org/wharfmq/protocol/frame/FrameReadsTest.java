package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection's reads take what Netty's adaptive allocator guesses until the connection is known to carry a stream
 * of messages ({@link FrameReads#readAtLeast}: a channel from another queue manager), then at least the floor given,
 * and still more when the guess grows past it; a large frame's buffer is read into on plain TCP, never under TLS.
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

    /**
     * On plain TCP a read goes into the free end of the large frame the decoder is reading; under TLS, whose records
     * are decrypted into other buffers, never: there a read takes the floor, one whole record and more.
     */
    @Test
    void aLargeFramesBufferIsReadIntoOnPlainTcpOnlyAndUnderTlsAReadTakesTheFloor() {
        assertTrue(new FrameReads(guesses()).framesInPlace());
        assertFalse(FrameReads.underTls(guesses()).framesInPlace());
        for (FrameReads reads : List.of(new FrameReads(guesses()), FrameReads.underTls(guesses()))) {
            FrameDecoder decoder = new FrameDecoder(8 << 20, new LargeFrameMemory(64 << 20));
            EmbeddedChannel channel = new EmbeddedChannel();
            channel.config().setRecvByteBufAllocator(reads);
            channel.pipeline().addLast(decoder);
            reads.readAtLeast(FLOOR);
            // the beginning of a 2 MiB frame: ordinary reads until it has a buffer of its own
            ByteBuf first = Unpooled.directBuffer(64 * 1024);
            first.writeInt(2 << 20).writeByte(FrameType.SEND.code()).writeZero(first.writableBytes());
            channel.writeInbound(first);
            channel.writeInbound(Unpooled.directBuffer(64 * 1024).writeZero(64 * 1024));
            ByteBuf target = decoder.readTarget();
            assertNotNull(target, "the frame's buffer");
            ByteBuf read = reads.newHandle().allocate(PooledByteBufAllocator.DEFAULT);
            try {
                if (reads.framesInPlace()) {
                    assertEquals(target.memoryAddress(), read.memoryAddress(), "on plain TCP, the frame's buffer");
                } else {
                    assertNotEquals(target.memoryAddress(), read.memoryAddress(), "under TLS, not the frame's buffer");
                    assertEquals(FLOOR, read.capacity(), "under TLS, the floor");
                }
            } finally {
                read.release();
                target.release();
            }
            channel.finishAndReleaseAll();
        }
    }

    private static AdaptiveRecvByteBufAllocator guesses() {
        return new AdaptiveRecvByteBufAllocator(64, 2048, 64 * 1024);
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
