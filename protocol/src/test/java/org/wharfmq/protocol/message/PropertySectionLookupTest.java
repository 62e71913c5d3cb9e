package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two properties found in one walk of a section ({@link PropertySection#tagsOf}), as a receiver channel finds its
 * transmission header's two, and a string property compared in place with a string ({@link PropertySection#isString}).
 */
class PropertySectionLookupTest {

    private static final byte[] QUEUE_MANAGER = TransmissionHeader.QUEUE_MANAGER.getBytes(StandardCharsets.UTF_8);
    private static final byte[] QUEUE = TransmissionHeader.QUEUE.getBytes(StandardCharsets.UTF_8);

    @Test
    void bothNamesAreFoundInOneWalkAsTagOfFindsEachAlone() {
        WireMessage m = new WireMessage();
        m.properties.put("first", 1);
        m.properties.put(TransmissionHeader.QUEUE, "ORDERS");
        m.properties.put("middle", "x");
        m.properties.put(TransmissionHeader.QUEUE_MANAGER, "QM2");
        ByteBuf buf = encode(m);
        int section = MessageHeaders.read(buf).propertiesOffset();
        long tags = PropertySection.tagsOf(buf, section, QUEUE_MANAGER, QUEUE);
        assertEquals(PropertySection.tagOf(buf, section, QUEUE_MANAGER), PropertySection.firstTag(tags));
        assertEquals(PropertySection.tagOf(buf, section, QUEUE), PropertySection.secondTag(tags));
        assertEquals("QM2", PropertySection.valueOf(buf, PropertySection.firstTag(tags)));
        assertEquals("ORDERS", PropertySection.valueOf(buf, PropertySection.secondTag(tags)));
        buf.release();
    }

    @Test
    void anAbsentNameIsMinusOneAndATwiceNamedOneDuplicate() {
        WireMessage m = new WireMessage();
        m.properties.put(TransmissionHeader.QUEUE, "ORDERS");
        ByteBuf buf = encode(m);
        int section = MessageHeaders.read(buf).propertiesOffset();
        // the same name twice in one section: written by hand, as a hostile partner would
        ByteBuf twice = Unpooled.buffer();
        twice.writeBytes(buf, 0, section);
        int start = twice.writerIndex();
        twice.writeInt(0);
        twice.writeShort(2);
        for (String value : new String[] {"QM2", "QM3"}) {
            twice.writeInt(QUEUE_MANAGER.length).writeBytes(QUEUE_MANAGER).writeByte(MessageEncoding.PROPERTY_STRING);
            twice.writeInt(3).writeBytes(value.getBytes(StandardCharsets.UTF_8));
        }
        twice.setInt(start, twice.writerIndex() - start - 4);
        twice.writeInt(-1); // no body

        long tags = PropertySection.tagsOf(buf, section, QUEUE_MANAGER, QUEUE);
        assertEquals(-1, PropertySection.firstTag(tags));
        assertTrue(PropertySection.secondTag(tags) > section);
        long duplicated = PropertySection.tagsOf(twice, section, QUEUE_MANAGER, QUEUE);
        assertEquals(PropertySection.DUPLICATE, PropertySection.firstTag(duplicated));
        assertEquals(-1, PropertySection.secondTag(duplicated));
        buf.release();
        twice.release();
    }

    @Test
    void aStringIsComparedInPlaceWithAStringOfAnyCharacters() {
        WireMessage m = new WireMessage();
        m.properties.put("ascii", "ORDERS");
        m.properties.put("unicode", "Bestell\u00fcngen");
        m.properties.put("empty", "");
        m.properties.put("none", null);
        m.properties.put("number", 7);
        ByteBuf buf = encode(m);
        int section = MessageHeaders.read(buf).propertiesOffset();
        int ascii = tag(buf, section, "ascii");
        assertTrue(PropertySection.isString(buf, ascii, "ORDERS"));
        assertFalse(PropertySection.isString(buf, ascii, "ORDERX"));
        assertFalse(PropertySection.isString(buf, ascii, "ORDER"));
        assertFalse(PropertySection.isString(buf, ascii, "ORDERS."));
        assertFalse(PropertySection.isString(buf, ascii, "ORDER\u00e9"), "as many chars, one not ASCII");
        int unicode = tag(buf, section, "unicode");
        assertTrue(PropertySection.isString(buf, unicode, "Bestell\u00fcngen"));
        assertFalse(PropertySection.isString(buf, unicode, "Bestellungen"));
        assertTrue(PropertySection.isString(buf, tag(buf, section, "empty"), ""));
        assertFalse(PropertySection.isString(buf, tag(buf, section, "none"), ""));
        assertFalse(PropertySection.isString(buf, tag(buf, section, "number"), "7"));
        buf.release();
    }

    private static int tag(ByteBuf buf, int section, String name) {
        return PropertySection.tagOf(buf, section, name.getBytes(StandardCharsets.UTF_8));
    }

    private static ByteBuf encode(WireMessage m) {
        ByteBuf buf = Unpooled.buffer();
        m.encode(buf);
        return buf;
    }
}
