package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A large frame is read into one buffer of its own size, which the connection keeps for its next large frames; past
 * the kept buffers' limit into one of exactly its length, whose memory is kept idle for the JVM's next such frame;
 * past that too (other frames ahead of their bytes) a frame still arrives whole, in a buffer grown to its size.
 */
class LargeFrameDecodingTest {

    private static final int MAX_FRAME = 8 << 20;
    private static final int READ = 64 * 1024;

    @Test
    void aLargeFrameIsReadIntoOneBufferOfItsSizeWhichServesTheConnectionsNextLargeFrame() {
        LargeFrameMemory memory = new LargeFrameMemory(64 << 20);
        EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(MAX_FRAME, memory));
        byte[] body = randomBytes(2 << 20, 1);
        int frameBytes = wireLength(send(body));
        int slab = LargeFrameBuffers.sizeClass(frameBytes);

        Frame.Send first = feed(in, encode(send(body)), READ);
        assertArrayEquals(body, bytes(first.message()));
        ByteBuf firstBuffer = underlying(first.message());
        assertEquals(slab, firstBuffer.capacity(), "one buffer of the frame's size class, not one grown by doubling");
        assertTrue(firstBuffer.capacity() - body.length <= body.length / 4,
                "a message that waits keeps no more than a quarter beyond itself alive (so it is not copied)");
        assertEquals(slab, memory.heldBytes());

        Frame.Send second = feed(in, encode(send(body)), READ); // the first message still lives: a second buffer
        assertNotSame(firstBuffer, underlying(second.message()));
        assertArrayEquals(body, bytes(second.message()));
        assertEquals(2L * slab, memory.heldBytes());

        first.message().release();
        byte[] other = randomBytes(2 << 20, 2);
        Frame.Send third = feed(in, encode(send(other)), READ);
        assertSame(firstBuffer, underlying(third.message()), "the released buffer serves the next frame");
        assertArrayEquals(other, bytes(third.message()));
        assertEquals(2L * slab, memory.heldBytes(), "no new buffer");

        Frame.Send fourth = feed(in, encode(send(body)), READ); // both kept buffers in use: one of its length, not kept
        assertArrayEquals(body, bytes(fourth.message()));
        assertEquals(2L * slab, memory.heldBytes());
        assertEquals(0, memory.aheadBytes());

        second.message().release();
        third.message().release();
        fourth.message().release();
        assertEquals(slab, memory.spareBytes(), "the frame past the kept buffers left its memory idle for the next");
        assertFalse(in.finish());
        assertEquals(0, memory.heldBytes(), "a closed connection gives its buffers back");
    }

    @Test
    void theFramesAfterALargeOneInTheSameReadArriveWithItWithAndWithoutKeptBuffers() {
        for (long limit : new long[]{64 << 20, 0}) {
            LargeFrameMemory memory = new LargeFrameMemory(limit);
            boolean grown = limit == 0 && memory.tryAhead(1); // another frame ahead: no buffer of its length either
            EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(MAX_FRAME, memory));
            byte[] body = randomBytes((1 << 20) + (1 << 17) - 1000 - 17, 3); // 1000 bytes short of a size class
            Frame.Commit commit = new Frame.Commit(9, 2, List.of(new Frame.Consumed(1, 2)));
            ByteBuf stream = Unpooled.buffer();
            stream.writeBytes(encode(send(body))).writeBytes(encode(commit)).writeBytes(encode(send(body)));
            int frameBytes = wireLength(send(body));
            assertTrue(LargeFrameBuffers.sizeClass(frameBytes) - frameBytes < 100_000,
                    "the read that ends the frame must run past its buffer's end");

            List<Object> frames = feedAll(in, stream, 100_000);
            assertEquals(3, frames.size(), "limit " + limit);
            Frame.Send first = (Frame.Send) frames.get(0);
            assertArrayEquals(body, bytes(first.message()));
            assertTrue(underlying(first.message()).capacity() <= frameBytes + frameBytes / 4,
                    "grown to the frame's size, not doubled past it: " + underlying(first.message()).capacity());
            assertEquals(commit, frames.get(1));
            Frame.Send last = (Frame.Send) frames.get(2);
            assertArrayEquals(body, bytes(last.message()));
            first.message().release();
            last.message().release();
            assertTrue(memory.heldBytes() <= limit);
            assertFalse(in.finish());
            assertEquals(0, memory.heldBytes());
            assertEquals(grown ? 1 : 0, memory.aheadBytes());
        }
    }

    /** What {@link FrameReads} does on a plain TCP connection: the socket is read into the frame's buffer. */
    @Test
    void readsIntoTheFramesBufferCompleteTheFrameWhereItLies() {
        FrameDecoder decoder = new FrameDecoder(MAX_FRAME, new LargeFrameMemory(64 << 20));
        EmbeddedChannel in = new EmbeddedChannel(decoder);
        assertNull(decoder.readTarget(), "no large frame, no buffer to read into");
        byte[] body = randomBytes(2 << 20, 4);
        ByteBuf wire = encode(send(body));
        for (int i = 0; i < 2; i++) { // ordinary reads until the frame has a buffer of its own
            ByteBuf piece = ByteBufAllocator.DEFAULT.directBuffer(READ);
            in.writeInbound(piece.writeBytes(wire, READ));
        }
        ByteBuf frameBuffer = null;
        while (wire.isReadable()) {
            ByteBuf target = decoder.readTarget();
            assertNotNull(target, "the free end of the frame's buffer");
            assertTrue(target.writableBytes() >= wire.readableBytes(), "room up to the frame's end at least");
            frameBuffer = frameBuffer == null ? underlying(target) : frameBuffer;
            assertSame(frameBuffer, underlying(target));
            in.writeInbound(target.writeBytes(wire, Math.min(300_000, wire.readableBytes()))); // as a socket read does
        }
        wire.release();
        Frame.Send frame = in.readInbound();
        assertArrayEquals(body, bytes(frame.message()));
        assertSame(frameBuffer, underlying(frame.message()));
        assertNull(decoder.readTarget(), "the frame is complete: reads go anywhere again");
        frame.message().release();
        assertFalse(in.finish());
    }

    @Test
    void aFramesLengthAloneTakesMemoryOnlyWithinTheLimitOrForOneFrameAtATime() {
        LargeFrameMemory memory = new LargeFrameMemory(8 << 20);
        EmbeddedChannel first = new EmbeddedChannel(new FrameDecoder(256 << 20, memory));
        first.writeInbound(Unpooled.buffer().writeInt(24 << 20).writeByte(FrameType.SEND.code()));
        first.writeInbound(Unpooled.buffer().writeZero(READ));
        assertEquals(0, memory.heldBytes(), "24 MiB announced, 64 KiB sent: no kept buffer past the limit");
        assertEquals((24 << 20) + 4 - 5 - READ, memory.aheadBytes(), "the one frame ahead of its bytes");

        EmbeddedChannel second = new EmbeddedChannel(new FrameDecoder(256 << 20, memory));
        second.writeInbound(Unpooled.buffer().writeInt(24 << 20).writeByte(FrameType.SEND.code()));
        second.writeInbound(Unpooled.buffer().writeZero(READ));
        assertEquals((24 << 20) + 4 - 5 - READ, memory.aheadBytes(), "a second frame past the limit waits for its bytes");
        assertFalse(second.finishAndReleaseAll());

        first.writeInbound(Unpooled.buffer().writeZero(8 << 20));
        assertEquals((16 << 20) + 4 - 5 - READ, memory.aheadBytes(), "bytes that came are no longer ahead");
        assertFalse(first.finishAndReleaseAll());
        assertEquals(0, memory.aheadBytes(), "a closed connection's frame is no longer awaited");

        EmbeddedChannel small = new EmbeddedChannel(new FrameDecoder(256 << 20, memory));
        small.writeInbound(Unpooled.buffer().writeInt(2 << 20).writeByte(FrameType.SEND.code()));
        small.writeInbound(Unpooled.buffer().writeZero(READ));
        assertEquals(LargeFrameBuffers.sizeClass((2 << 20) + 4), memory.heldBytes(), "2 MiB announced: within the limit");
        assertFalse(small.finishAndReleaseAll());
        assertEquals(0, memory.heldBytes());
    }

    /** A 100 MB message past the kept buffers' limit was copied 1.2 times over, into 220 MB of new memory. */
    @Test
    void aFrameLargerThanTheLimitIsReadIntoOneBufferOfExactlyItsLengthNotGrown() {
        LargeFrameMemory memory = new LargeFrameMemory(1 << 20);
        FrameDecoder decoder = new FrameDecoder(MAX_FRAME, memory);
        EmbeddedChannel in = new EmbeddedChannel(decoder);
        byte[] body = randomBytes(6 << 20, 5);
        int frameBytes = wireLength(send(body));
        ByteBuf wire = encode(send(body));
        in.writeInbound(ByteBufAllocator.DEFAULT.directBuffer(READ).writeBytes(wire, READ));
        in.writeInbound(ByteBufAllocator.DEFAULT.directBuffer(READ).writeBytes(wire, READ));
        ByteBuf target = decoder.readTarget();
        assertNotNull(target, "the frame has its whole buffer after its second read, and the socket is read into it");
        ByteBuf frameBuffer = underlying(target);
        assertEquals(frameBytes - 2 * READ, target.writableBytes(), "exactly the frame's length: reads stop at its end");
        assertTrue(frameBuffer.capacity() <= LargeFrameBuffers.sizeClass(frameBytes));
        assertEquals(frameBytes - 2L * READ, memory.aheadBytes());
        in.writeInbound(target.writeBytes(wire, 1 << 20));
        assertEquals(frameBytes - 2L * READ - (1 << 20), memory.aheadBytes(), "counted down as the bytes come");
        in.writeInbound(ByteBufAllocator.DEFAULT.directBuffer(wire.readableBytes()).writeBytes(wire));
        wire.release();

        Frame.Send frame = in.readInbound();
        assertArrayEquals(body, bytes(frame.message()));
        assertSame(frameBuffer, underlying(frame.message()), "the message lies where it was read: never copied");
        assertEquals(0, memory.aheadBytes());
        assertEquals(0, memory.heldBytes(), "not kept: a frame past the limit takes its memory only while it lives");
        frame.message().release();
        assertEquals(0, frameBuffer.refCnt());
        assertEquals(0, memory.spareBytes(), "larger than the 1 MiB limit: freed, not kept idle");
        assertFalse(in.finish());
    }

    /** A 100 MB frame's memory was new each time: zeroed by the JDK, faulted in and zeroed by the kernel, unmapped. */
    @Test
    void theMemoryOfAFramePastTheKeptBuffersServesTheNextSuchFrameByteForByte() {
        LargeFrameMemory memory = new LargeFrameMemory(0, 64 << 20); // no kept buffers: every large frame past them
        EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(MAX_FRAME, memory));
        byte[] body = randomBytes(3 << 20, 6);
        int frameBytes = wireLength(send(body));
        int size = LargeFrameBuffers.sizeClass(frameBytes);

        Frame.Send first = feed(in, encode(send(body)), READ);
        Frame.Send second = feed(in, encode(send(body)), READ); // the first still lives: new memory
        assertEquals(2, memory.spares().allocated());
        long[] addresses = {underlying(first.message()).memoryAddress(), underlying(second.message()).memoryAddress()};
        assertNotEquals(addresses[0], addresses[1]);
        assertArrayEquals(body, bytes(first.message()));
        assertArrayEquals(body, bytes(second.message()));
        assertEquals(0, memory.spareBytes());

        first.message().release();
        second.message().release();
        assertEquals(2L * size, memory.spareBytes(), "both kept idle, within the 64 MiB limit");
        assertEquals(0, memory.heldBytes());

        for (int i = 0; i < 3; i++) {
            byte[] other = randomBytes(body.length, 7 + i);
            Frame.Send next = feed(in, encode(send(other)), READ);
            ByteBuf memoryOf = underlying(next.message());
            assertTrue(memoryOf.memoryAddress() == addresses[0] || memoryOf.memoryAddress() == addresses[1],
                    "idle memory taken again");
            assertEquals(2, memory.spares().allocated(), "no new memory");
            assertEquals(size, memory.spareBytes(), "the other stays idle");
            assertArrayEquals(other, bytes(next.message()), "every byte the new frame's, none of the last one's");
            assertEquals(body.length, next.message().readableBytes());
            next.message().release();
        }
        assertEquals(2L * size, memory.spareBytes());
        assertEquals(0, memory.aheadBytes());
        assertFalse(in.finish());
    }

    @Test
    void idleMemoryStaysWithinTheAheadLimitWithTheBytesAheadWhichComeFirst() {
        LargeFrameMemory memory = new LargeFrameMemory(0, 5 << 20);
        EmbeddedChannel in = new EmbeddedChannel(new FrameDecoder(MAX_FRAME, memory));
        byte[] body = randomBytes(3 << 20, 10);
        int size = LargeFrameBuffers.sizeClass(wireLength(send(body)));
        Frame.Send first = feed(in, encode(send(body)), READ);
        Frame.Send second = feed(in, encode(send(body)), READ);
        first.message().release();
        second.message().release();
        assertEquals(size, memory.spareBytes(), "one kept idle; the second would pass the 5 MiB limit: freed");

        byte[] larger = randomBytes(4 << 20, 11); // too large for the idle memory, and with it past the limit
        ByteBuf wire = encode(send(larger));
        in.writeInbound(ByteBufAllocator.DEFAULT.directBuffer(READ).writeBytes(wire, READ));
        in.writeInbound(ByteBufAllocator.DEFAULT.directBuffer(READ).writeBytes(wire, READ));
        assertTrue(memory.aheadBytes() > 0, "the frame is counted ahead of its bytes");
        assertEquals(0, memory.spareBytes(), "the idle memory freed to make room for it");
        in.writeInbound(ByteBufAllocator.DEFAULT.directBuffer(wire.readableBytes()).writeBytes(wire));
        wire.release();
        Frame.Send third = in.readInbound();
        assertArrayEquals(larger, bytes(third.message()));
        third.message().release();
        assertEquals(LargeFrameBuffers.sizeClass(wireLength(send(larger))), memory.spareBytes());
        assertFalse(in.finish());
    }

    @Test
    void sizeClassesWasteLessThanAnEighth() {
        assertEquals(512 * 1024, LargeFrameBuffers.sizeClass(512 * 1024));
        assertEquals((2 << 20) + (256 << 10), LargeFrameBuffers.sizeClass((2 << 20) + 1));
        for (int bytes = LargeFrameBuffers.LARGE_FRAME_BYTES; bytes < 200 << 20; bytes += 999_983) {
            int size = LargeFrameBuffers.sizeClass(bytes);
            assertTrue(size >= bytes && size - bytes <= bytes / 8, bytes + " -> " + size);
        }
    }

    private static Frame.Send send(byte[] body) {
        return new Frame.Send(1, 2, 3, Unpooled.wrappedBuffer(body));
    }

    /** The frame's bytes as they go on the wire. */
    private static ByteBuf encode(Frame frame) {
        EmbeddedChannel out = new EmbeddedChannel(FrameEncoder.INSTANCE);
        assertTrue(out.writeOutbound(frame));
        ByteBuf wire = Unpooled.buffer();
        for (ByteBuf chunk; (chunk = out.readOutbound()) != null; ) {
            wire.writeBytes(chunk);
            chunk.release();
        }
        return wire;
    }

    private static int wireLength(Frame frame) {
        ByteBuf wire = encode(frame);
        int length = wire.readableBytes();
        wire.release();
        return length;
    }

    /** Writes {@code wire} in reads of {@code read} bytes (each a buffer of its own, as a socket read is). */
    private static Frame.Send feed(EmbeddedChannel in, ByteBuf wire, int read) {
        List<Object> frames = feedAll(in, wire, read);
        assertEquals(1, frames.size());
        return (Frame.Send) frames.get(0);
    }

    private static List<Object> feedAll(EmbeddedChannel in, ByteBuf wire, int read) {
        while (wire.isReadable()) {
            int n = Math.min(read, wire.readableBytes());
            ByteBuf piece = ByteBufAllocator.DEFAULT.directBuffer(n);
            piece.writeBytes(wire, n);
            in.writeInbound(piece);
        }
        wire.release();
        List<Object> frames = new java.util.ArrayList<>();
        for (Object frame; (frame = in.readInbound()) != null; ) {
            frames.add(frame);
        }
        return frames;
    }

    private static ByteBuf underlying(ByteBuf content) {
        ByteBuf root = content;
        for (ByteBuf under = root.unwrap(); under != null; under = under.unwrap()) {
            root = under;
        }
        return root;
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        return out;
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] bytes = new byte[n];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
