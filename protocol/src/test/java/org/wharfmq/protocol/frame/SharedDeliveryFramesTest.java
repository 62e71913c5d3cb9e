package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DELIVER_KEEP and DELIVER_SAME (docs/protocol.md, "Shared deliveries"): what the server appends is what a client link
 * reads, a kept message's deliveries each a buffer of their own over the one kept array, and a frame naming a slot
 * that holds nothing refused.
 */
class SharedDeliveryFramesTest {

    private static ByteBuf message(int seed) {
        byte[] bytes = new byte[300];
        Arrays.fill(bytes, (byte) seed);
        bytes[0] = 2; // any first byte: the frames carry a message whatever its body type
        return Unpooled.wrappedBuffer(bytes);
    }

    /** Reads the frame at {@code in}'s reader index as a keeping link does, and moves past it. */
    private static Frame.Deliver read(ByteBuf in, byte[][] kept) {
        int length = in.readInt();
        int start = in.readerIndex();
        byte type = in.getByte(start);
        Frame.Deliver d = type == FrameType.DELIVER_SAME.code()
                ? Frame.DeliverSame.readKept(in, start, length, kept)
                : Frame.DeliverKeep.readKept(in, start, length, kept);
        in.readerIndex(start + length);
        return d;
    }

    @Test
    void aKeptMessageIsDeliveredAgainFromItsSlotEachTimeAsABufferOfItsOwn() {
        ByteBuf first = message(7);
        ByteBuf second = message(9);
        ByteBuf wire = Unpooled.buffer();
        Frame.DeliverKeep.writeFrame(wire, 11, 100, 1, 3, first);
        Frame.DeliverSame.writeFrame(wire, 12, 200, 1, 3);
        Frame.DeliverKeep.writeFrame(wire, 13, 300, 2, 4, second);
        Frame.DeliverSame.writeFrame(wire, 14, 400, 1, 3);
        Frame.DeliverSame.writeFrame(wire, 15, 500, 1, 4);
        assertEquals(2 * Frame.DeliverKeep.frameLength(300) + 3 * Frame.DeliverSame.FRAME_BYTES, wire.readableBytes());
        assertEquals(0, first.readerIndex(), "the message's indices are left as they were");

        byte[][] kept = new byte[16][];
        Frame.Deliver keep3 = read(wire, kept);
        Frame.Deliver same3 = read(wire, kept);
        Frame.Deliver keep4 = read(wire, kept);
        Frame.Deliver again3 = read(wire, kept);
        Frame.Deliver same4 = read(wire, kept);
        assertEquals(0, wire.readableBytes());

        assertEquals(new Frame.Deliver(12, 200, 1, same3.message()), same3);
        assertEquals(13, keep4.consumerId());
        assertEquals(300, keep4.deliveryId());
        assertEquals(2, keep4.deliveryCount());
        for (Frame.Deliver d : new Frame.Deliver[]{keep3, same3, again3}) {
            assertArrayEquals(bytes(first), bytes(d.message()), "delivery " + d.deliveryId());
            assertTrue(FrameArray.holds(d.message()), "its body may stay where it lies: the array is nobody's to write");
        }
        for (Frame.Deliver d : new Frame.Deliver[]{keep4, same4}) {
            assertArrayEquals(bytes(second), bytes(d.message()), "delivery " + d.deliveryId());
        }
        assertSame(keep3.message().array(), same3.message().array(), "the kept array, not a copy");
        assertNotSame(keep3.message(), same3.message(), "each delivery a buffer of its own");
        assertNotSame(keep3.message().array(), first.array(), "the kept message a copy of the frame's bytes");

        // one delivery read and released leaves the others whole
        same3.message().skipBytes(100);
        same3.message().release();
        assertArrayEquals(bytes(first), bytes(again3.message()));
    }

    @Test
    void theFramesDecodeAsTheyWereWritten() {
        ByteBuf wire = Unpooled.buffer();
        Frame.DeliverKeep.writeFrame(wire, 5, 6, 1, 2, message(1));
        Frame.DeliverSame.writeFrame(wire, 5, 7, 1, 2);
        Frame keep = FrameDecoder.decodeFrame(wire.readSlice(wire.readInt()));
        Frame same = FrameDecoder.decodeFrame(wire.readSlice(wire.readInt()));
        Frame.DeliverKeep k = (Frame.DeliverKeep) keep;
        assertEquals(2, k.slot());
        assertArrayEquals(bytes(message(1)), bytes(k.message()));
        assertEquals(new Frame.DeliverSame(5, 7, 1, 2), same);
        assertEquals(new Frame.ShareDeliveries(16),
                FrameDecoder.decodeFrame(encoded(new Frame.ShareDeliveries(16))));
        k.message().release();
    }

    @Test
    void aSlotThatHoldsNothingOrIsPastTheClientsIsMalformed() {
        byte[][] kept = new byte[4][];
        ByteBuf same = Unpooled.buffer();
        Frame.DeliverSame.writeFrame(same, 1, 1, 1, 2);
        MalformedFrameException empty = assertThrows(MalformedFrameException.class, () -> read(same, kept));
        assertTrue(empty.getMessage().contains("slot 2, which no DELIVER_KEEP filled"), empty.getMessage());

        ByteBuf keep = Unpooled.buffer();
        Frame.DeliverKeep.writeFrame(keep, 1, 1, 1, 4, message(3));
        MalformedFrameException past = assertThrows(MalformedFrameException.class, () -> read(keep, kept));
        assertTrue(past.getMessage().contains("slot 4, but this client keeps 4"), past.getMessage());

        MalformedFrameException unasked = assertThrows(MalformedFrameException.class,
                () -> new Frame.DeliverSame(1, 1, 1, 0).handleWith(null));
        assertTrue(unasked.getMessage().contains("never sent SHARE_DELIVERIES"), unasked.getMessage());
    }

    private static ByteBuf encoded(Frame frame) {
        ByteBuf out = Unpooled.buffer();
        FrameEncoder.writeHeader(frame, out);
        out.skipBytes(4);
        return out;
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        return out;
    }
}
