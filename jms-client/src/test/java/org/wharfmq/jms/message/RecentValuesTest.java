package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.wharfmq.jms.WharfQueue;
import org.wharfmq.jms.WharfTopic;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.JMSException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * A consumer's decoder hands out again what its last message had the same (destinations, property names and string
 * values) and decodes whatever differs, even by one byte, as a decoder without memory does.
 */
class RecentValuesTest {

    private final RecentValues recent = new RecentValues();

    @Test
    void theSameDestinationAndPropertyStringsAreHandedOutAgain() throws JMSException {
        WharfMessage first = decoded(message(WireDestination.topic("PS/N"), new WharfQueue("REPLY"), "pub-1", 1));
        WharfMessage second = decoded(message(WireDestination.topic("PS/N"), new WharfQueue("REPLY"), "pub-1", 2));

        assertSame(first.getJMSDestination(), second.getJMSDestination());
        assertSame(first.getJMSReplyTo(), second.getJMSReplyTo());
        assertEquals(new WharfTopic("PS/N"), second.getJMSDestination());
        assertEquals(new WharfQueue("REPLY"), second.getJMSReplyTo());
        assertSame(first.getStringProperty("perfSrc"), second.getStringProperty("perfSrc"));
        List<String> firstNames = names(first);
        List<String> secondNames = names(second);
        for (int i = 0; i < firstNames.size(); i++) {
            assertSame(firstNames.get(i), secondNames.get(i), "property name " + firstNames.get(i));
        }
        assertEquals(2L, second.getLongProperty("perfSeq"));
    }

    @Test
    void whateverDiffersIsDecodedAsWithoutMemory() throws JMSException {
        decoded(message(WireDestination.topic("PS/N"), new WharfQueue("REPLY"), "pub-1", 1));

        // same lengths, one byte different: a topic of another name, a queue of the same name, another source
        ByteBuf other = message(WireDestination.topic("PS/M"), new WharfQueue("REPLZ"), "pub-2", 2);
        WharfMessage m = decoded(other.duplicate());
        assertEquals(new WharfTopic("PS/M"), m.getJMSDestination());
        assertEquals(new WharfQueue("REPLZ"), m.getJMSReplyTo());
        assertEquals("pub-2", m.getStringProperty("perfSrc"));
        assertEquals(MessageCodec.decode(other, 1).propertiesRaw(), m.propertiesRaw());

        WharfMessage queue = decoded(message(WireDestination.queue("PS/M"), null, "pub-2", 3));
        assertInstanceOf(WharfQueue.class, queue.getJMSDestination());
        assertEquals(new WharfQueue("PS/M"), queue.getJMSDestination());
        assertNull(queue.getJMSReplyTo());
        WharfMessage back = decoded(message(WireDestination.topic("PS/M"), new WharfQueue("REPLZ"), "pub-2", 4));
        assertEquals(new WharfTopic("PS/M"), back.getJMSDestination());
        assertNotSame(m.getJMSDestination(), back.getJMSDestination());
        assertEquals(new WharfQueue("REPLZ"), back.getJMSReplyTo());
    }

    @Test
    void propertiesInAnotherOrderOrNotAsciiAreDecodedEachTime() throws JMSException {
        WharfMessage ascii = new WharfMessage();
        ascii.setStringProperty("a", "x");
        ascii.setStringProperty("b", "y");
        decoded(encoded(ascii, WireDestination.topic("T")));

        WharfMessage swapped = new WharfMessage();
        swapped.setStringProperty("b", "x");
        swapped.setStringProperty("a", "y");
        swapped.setStringProperty("grüße", "€uro");
        swapped.setStringProperty("empty", "");
        swapped.setStringProperty("none", null);
        swapped.setIntProperty("n", 7);
        for (int i = 0; i < 2; i++) {
            WharfMessage m = decoded(encoded(swapped, WireDestination.topic("T")));
            assertEquals("x", m.getStringProperty("b"));
            assertEquals("y", m.getStringProperty("a"));
            assertEquals("€uro", m.getStringProperty("grüße"));
            assertEquals("", m.getStringProperty("empty"));
            assertNull(m.getStringProperty("none"));
            assertEquals(7, m.getIntProperty("n"));
            assertEquals(List.of("b", "a", "grüße", "empty", "none", "n"), names(m));
        }
    }

    @Test
    void propertiesPastTheRememberedOnesAreDecoded() throws JMSException {
        WharfMessage many = new WharfMessage();
        for (int i = 0; i < 40; i++) {
            many.setStringProperty("p" + i, "v" + i);
        }
        for (int round = 0; round < 2; round++) {
            WharfMessage m = decoded(encoded(many, WireDestination.topic("T")));
            for (int i = 0; i < 40; i++) {
                assertEquals("v" + i, m.getStringProperty("p" + i));
            }
        }
    }

    private WharfMessage decoded(ByteBuf buf) {
        return MessageCodec.decode(buf, 1, recent);
    }

    private static ByteBuf message(WireDestination destination, WharfQueue replyTo, String source, long sequence)
            throws JMSException {
        WharfBytesMessage m = new WharfBytesMessage();
        m.writeBytes(new byte[]{1, 2, 3});
        m.setJMSMessageID("ID:x:" + sequence);
        m.setJMSReplyTo(replyTo);
        m.setStringProperty("perfSrc", source);
        m.setLongProperty("perfSeq", sequence);
        m.setLongProperty("perfSentUs", 1000 + sequence);
        return encoded(m, destination);
    }

    private static ByteBuf encoded(WharfMessage m, WireDestination destination) throws JMSException {
        ByteBuf buf = Unpooled.buffer();
        MessageCodec.encode(m, destination, buf);
        return buf;
    }

    /** The message's property names in wire order. */
    private static List<String> names(WharfMessage m) {
        return new ArrayList<>(m.propertiesRaw().keySet());
    }
}
