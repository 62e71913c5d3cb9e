package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.MalformedFrameException;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The property section is checked when the headers are read ({@link MessageHeaders#read}, run by the server on
 * every SEND), so a message whose properties could not be decoded later is refused up front, with an error that
 * says which property is wrong, how, and where.
 */
class PropertyValidationTest {

    /** Four properties; 'color' is the third. */
    private static ByteBuf message() {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.TEXT;
        m.messageId = "ID:test:1";
        m.destination = WireDestination.queue("ORDERS");
        m.properties.put("size", 3);
        m.properties.put("shape", "round");
        m.properties.put("color", "red");
        m.properties.put("weight", 2.5d);
        m.body = "body".getBytes(StandardCharsets.UTF_8);
        ByteBuf buf = Unpooled.buffer();
        m.encode(buf);
        return buf;
    }

    /** Offset of the first byte after the UTF-8 bytes of {@code name} (a property's tag). */
    private static int tagOffset(ByteBuf message, String name) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        int at = ByteBufUtil.indexOf(Unpooled.wrappedBuffer(bytes), message);
        assertTrue(at >= 0, name + " not found");
        return at + bytes.length;
    }

    private static String refusal(ByteBuf message) {
        return assertThrows(MalformedFrameException.class, () -> MessageHeaders.read(message)).getMessage();
    }

    @Test
    void unknownTypeTagIsNamedWithThePropertyAndItsOffset() {
        ByteBuf m = message();
        int tag = tagOffset(m, "color");
        m.setByte(tag, 0x7f);
        assertEquals("property 3 of 4 ('color') has unknown type tag 0x7f at offset " + tag, refusal(m));
    }

    @Test
    void propertiesThatEndBeforeTheirCountAreRefused() {
        ByteBuf m = message();
        int countAt = countOffset(m);
        m.setShort(countAt, 5); // four are there; the section length still matches the message
        String error = refusal(m);
        assertTrue(error.startsWith("the property section ends at offset "), error);
        assertTrue(error.contains("after 4 of its 5 properties"), error);
    }

    @Test
    void bytesLeftAfterTheLastPropertyAreRefused() {
        ByteBuf m = message();
        m.setShort(countOffset(m), 3); // the fourth property's bytes are left over
        String error = refusal(m);
        assertTrue(error.startsWith("the property section declares "), error);
        assertTrue(error.contains("but its 3 properties end at offset"), error);
    }

    @Test
    void aStringValueLongerThanTheSectionIsRefused() {
        ByteBuf m = message();
        int valueAt = tagOffset(m, "shape") + 1;
        m.setInt(valueAt, 1000);
        assertEquals("property 2 of 4 ('shape'): its value at offset " + valueAt
                + " runs past the end of the property section at offset " + sectionEnd(m), refusal(m));
    }

    @Test
    void aNegativeStringLengthIsRefused() {
        ByteBuf m = message();
        int valueAt = tagOffset(m, "shape") + 1;
        m.setInt(valueAt, -7);
        assertEquals("property 2 of 4 ('shape') has a string value of length -7 at offset " + valueAt
                + " (-1 is null, else >= 0)", refusal(m));
    }

    @Test
    void aNullNameIsRefused() {
        ByteBuf m = message();
        int nameAt = tagOffset(m, "size") - 4 - 4;
        m.setInt(nameAt, -1);
        assertEquals("property 1 of 4 has a null name at offset " + nameAt, refusal(m));
    }

    @Test
    void aNameRunningPastTheSectionIsRefused() {
        ByteBuf m = message();
        int nameAt = tagOffset(m, "weight") - 6 - 4;
        m.setInt(nameAt, 100);
        String error = refusal(m);
        assertTrue(error.startsWith("property 4 of 4 has a name of 100 bytes at offset " + nameAt), error);
    }

    @Test
    void aValidSectionIsAccepted() {
        assertDoesNotThrow(() -> MessageHeaders.read(message()));
    }

    /**
     * The check accepts exactly what {@link PropertySection#read} decodes: whatever bytes of the section
     * are changed, either both accept or the check refuses (and decoding fails too).
     */
    @Test
    void theCheckAgreesWithTheDecoderOnCorruptedSections() {
        Random random = new Random(19);
        ByteBuf intact = message();
        int start = countOffset(intact) - 4;
        int end = sectionEnd(intact);
        for (int round = 0; round < 20_000; round++) {
            ByteBuf m = intact.copy();
            for (int changes = 1 + random.nextInt(3); changes > 0; changes--) {
                int at = start + 4 + random.nextInt(end - start - 4); // the length prefix stays right
                m.setByte(at, random.nextInt(4) == 0 ? random.nextInt(256) : m.getByte(at) + random.nextInt(5) - 2);
            }
            boolean checked;
            try {
                MessageHeaders.read(m);
                checked = true;
            } catch (MalformedFrameException e) {
                checked = false;
            }
            boolean decoded;
            try {
                PropertySection.read(m, start, m.readerIndex(), m.writerIndex());
                decoded = true;
            } catch (MalformedFrameException e) {
                decoded = false;
            } catch (RuntimeException e) {
                fail("readProperties threw " + e + " on " + ByteBufUtil.hexDump(m));
                return;
            }
            if (checked != decoded) {
                fail("the check " + (checked ? "accepted" : "refused") + " a section the decoder "
                        + (decoded ? "decodes" : "cannot decode") + ": " + ByteBufUtil.hexDump(m));
            }
        }
    }

    private static int countOffset(ByteBuf m) {
        return tagOffset(m, "size") - 4 - 4 - 2; // name "size" (4 bytes) after its length, after the count
    }

    private static int sectionEnd(ByteBuf m) {
        int lengthAt = countOffset(m) - 4;
        return lengthAt + 4 + m.getInt(lengthAt);
    }
}
