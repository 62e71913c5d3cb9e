package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.MalformedFrameException;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CorrelationIdsTest {

    @Test
    void bytesReadAsIdAndLowercaseHexEveryByteValueIncluded() {
        byte[] all = new byte[256];
        StringBuilder expected = new StringBuilder("ID:");
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
            expected.append(Character.forDigit(i >> 4, 16)).append(Character.forDigit(i & 0xf, 16));
        }
        assertEquals(expected.toString(), CorrelationIds.ofBytes(all));
        assertEquals("ID:0abc", CorrelationIds.ofBytes(new byte[]{0x0a, (byte) 0xbc}));
        assertEquals("ID:", CorrelationIds.ofBytes(new byte[0]));
    }

    @Test
    void bytesAreReadInPlaceWithoutMovingTheBuffer() {
        ByteBuf buf = Unpooled.wrappedBuffer(new byte[]{1, 2, (byte) 0xfe, 4});
        assertEquals("ID:02fe", CorrelationIds.ofBytes(buf, 1, 2));
        assertEquals(0, buf.readerIndex());
    }

    @Test
    void theStringFormStandsForItsBytesInEitherCaseAndEveryOtherStringForItsUtf8() {
        assertArrayEquals(new byte[]{0x0a, (byte) 0xbc}, CorrelationIds.toBytes("ID:0abc"));
        assertArrayEquals(new byte[]{0x0a, (byte) 0xbc}, CorrelationIds.toBytes("ID:0ABC"));
        assertArrayEquals(new byte[0], CorrelationIds.toBytes("ID:"));
        for (String notTheForm : new String[]{"ID:abc", "ID:0abg", "id:0abc", "ID:wharf-1-2:3", "0abc", "é"}) {
            assertArrayEquals(notTheForm.getBytes(StandardCharsets.UTF_8), CorrelationIds.toBytes(notTheForm), notTheForm);
        }
        byte[] any = {(byte) 0xc0, (byte) 0xa8, 0, 0x7f, (byte) 0x80};
        assertArrayEquals(any, CorrelationIds.toBytes(CorrelationIds.ofBytes(any)));
    }

    @Test
    void headersGiveAByteIdInItsStringFormAndRefuseALengthPastTheMessage() {
        WireMessage m = new WireMessage();
        m.destination = WireDestination.queue("Q");
        m.correlationIdBytes = new byte[]{0, 1, 2, (byte) 0xff};
        ByteBuf buf = Unpooled.buffer();
        m.encode(buf);
        assertEquals("ID:000102ff", MessageHeaders.read(buf).correlationId());

        int lengthAt = MessageEncoding.MESSAGE_ID_OFFSET + 4; // after the null message id's length
        buf.setInt(lengthAt, buf.readableBytes());
        MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> MessageHeaders.read(buf));
        assertEquals("correlation id length " + buf.readableBytes() + " does not fit the message", e.getMessage());
    }
}
