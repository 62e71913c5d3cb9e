package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.MalformedFrameException;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each rule of the layout exists once: the writer refuses what the readers refuse, and the server's header read
 * refuses exactly what a receiver's decoding refuses (it used not to: the two disagreed on a reply-to without a
 * name and on bytes after the body).
 */
class MessageRulesTest {

    private static WireMessage message() {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.TEXT;
        m.messageId = "ID:rules:1";
        m.destination = WireDestination.queue("ORDERS");
        m.replyTo = WireDestination.queue("REPLY");
        m.type = "t";
        m.properties.put("color", "red");
        m.body = new byte[]{'h', 'i'};
        return m;
    }

    private static ByteBuf encode(WireMessage m) {
        ByteBuf buf = Unpooled.buffer();
        m.encode(buf);
        return buf;
    }

    /** The server's refusal and a receiver's refusal of the same bytes, which must be the same. */
    private static String refusedByBoth(ByteBuf message) {
        String server = assertThrows(MalformedFrameException.class, () -> MessageHeaders.read(message)).getMessage();
        String receiver = assertThrows(MalformedFrameException.class, () -> WireMessage.decode(message.duplicate()))
                .getMessage();
        assertEquals(server, receiver, "the header read and the decoding refuse the message in other words");
        return server;
    }

    @Test
    void aPriorityOutside0To9IsRefusedByTheWriterAndTheReadersInTheSameWords() {
        for (int priority : new int[]{10, -1, 127}) {
            WireMessage m = message();
            m.priority = priority;
            String written = assertThrows(IllegalArgumentException.class, () -> encode(m)).getMessage();
            assertEquals(MessageEncoding.invalidPriority(priority), written);
            assertTrue(written.startsWith("priority " + priority + " is outside 0-9"), written);

            ByteBuf bytes = encode(message());
            bytes.setByte(MessageEncoding.PRIORITY_OFFSET, priority);
            assertEquals(written, refusedByBoth(bytes));
        }
    }

    @Test
    void aReplyToWithoutANameIsRefusedByTheHeaderReadAsByTheDecoding() {
        ByteBuf m = encode(message());
        int replyToAt = indexOf(m, "REPLY") - 4 - 1; // its kind byte, then the name's length
        assertEquals(WireDestination.Kind.QUEUE.code(), m.getByte(replyToAt));
        m.setInt(replyToAt + 1, -1);
        // the name's five bytes are left over where the type should start: cut them out
        ByteBuf nameless = Unpooled.buffer();
        nameless.writeBytes(m, 0, replyToAt + 5).writeBytes(m, replyToAt + 10, m.readableBytes() - replyToAt - 10);
        assertEquals("destination of kind QUEUE has no name", refusedByBoth(nameless));
    }

    @Test
    void bytesAfterTheBodyAreRefusedByTheHeaderReadAsByTheDecoding() {
        ByteBuf m = encode(message());
        m.writeByte(0);
        assertEquals("body length 2 does not match the 3 bytes left", refusedByBoth(m));
    }

    @Test
    void aByteCorrelationIdLongerThanTheMessageIsRefusedByBoth() {
        WireMessage m = message();
        m.correlationIdBytes = new byte[]{1, 2};
        ByteBuf bytes = encode(m);
        int lengthAt = MessageEncoding.MESSAGE_ID_OFFSET + 4 + m.messageId.length();
        assertEquals(2, bytes.getInt(lengthAt));
        bytes.setInt(lengthAt, 1000);
        assertEquals("correlation id length 1000 does not fit the message", refusedByBoth(bytes));
    }

    @Test
    void aMessageCutShortIsRefusedByBothWhereverItIsCut() {
        ByteBuf whole = encode(message());
        for (int length = 0; length < whole.readableBytes(); length++) {
            refusedByBoth(whole.slice(0, length));
        }
    }

    @Test
    void theWriterRefusesAPropertyTheReadersWouldRefuse() {
        WireMessage nullName = message();
        nullName.properties.put(null, 1);
        assertEquals("a property name must not be null",
                assertThrows(IllegalArgumentException.class, () -> encode(nullName)).getMessage());

        WireMessage tooMany = message();
        for (int i = tooMany.properties.size(); i <= PropertySection.MAX_PROPERTIES; i++) {
            tooMany.properties.put("p" + i, i);
        }
        assertEquals("65536 properties: a message carries at most 65535",
                assertThrows(IllegalArgumentException.class, () -> encode(tooMany)).getMessage());
    }

    @Test
    void aNullPropertyValueIsAStringPropertyWithoutAValueForEveryWriter() {
        WireMessage m = message();
        m.properties.put("nothing", null);
        ByteBuf bytes = encode(m);
        Map<String, Object> read = MessageHeaders.read(bytes).readProperties(bytes);
        assertTrue(read.containsKey("nothing"));
        assertNull(read.get("nothing"));
        assertEquals(read, WireMessage.decode(bytes).properties);
    }

    @Test
    void aSkippedReplyToIsCheckedAsAReadOne() {
        ByteBuf m = encode(message());
        m.setByte(indexOf(m, "REPLY") - 5, 9); // the reply-to's kind
        assertEquals("unknown destination kind 9", refusedByBoth(m));
    }

    private static int indexOf(ByteBuf m, String ascii) {
        for (int i = 0; i + ascii.length() <= m.writerIndex(); i++) {
            boolean match = true;
            for (int j = 0; j < ascii.length() && match; j++) {
                match = m.getByte(i + j) == ascii.charAt(j);
            }
            if (match) {
                return i;
            }
        }
        throw new AssertionError(ascii + " not in the message");
    }
}
