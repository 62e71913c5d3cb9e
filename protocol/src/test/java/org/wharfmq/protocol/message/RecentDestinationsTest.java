package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * A reader's recent destinations ({@link MessageHeaders#read(ByteBuf, WireDestination[])}): a message to one of them
 * takes the one kept, the same object, rather than a destination decoded anew; any other is decoded as
 * {@link MessageHeaders#read(ByteBuf)} decodes it and kept in the first place, the oldest leaving.
 */
class RecentDestinationsTest {

    @Test
    void aMessageToARecentDestinationTakesTheOneKeptAndAnyOtherIsDecodedAndKept() {
        WireDestination[] recent = new WireDestination[3];
        WireDestination one = read(message(WireDestination.queue("REQUEST1")), recent);
        WireDestination two = read(message(WireDestination.queue("REQUEST2")), recent);
        assertEquals(WireDestination.queue("REQUEST1"), one);
        assertEquals(WireDestination.queue("REQUEST2"), two);
        assertSame(one, read(message(WireDestination.queue("REQUEST1")), recent), "kept: not made again");
        assertSame(two, read(message(WireDestination.queue("REQUEST2")), recent), "kept: not made again");

        // the same name of another kind, a name one byte longer, a name not ASCII: each its own, as decoded
        WireDestination topic = read(message(WireDestination.topic("REQUEST1")), recent);
        assertEquals(WireDestination.topic("REQUEST1"), topic);
        assertEquals(WireDestination.queue("REQUEST10"), read(message(WireDestination.queue("REQUEST10")), recent));
        assertEquals(WireDestination.queue("BESTÄLLNING"), read(message(WireDestination.queue("BESTÄLLNING")), recent));
        assertEquals(WireDestination.queue("BESTÄLLNING"), read(message(WireDestination.queue("BESTÄLLNING")), recent));

        // three places: REQUEST1 and REQUEST2 have left, so they are made anew and kept again
        WireDestination again = read(message(WireDestination.queue("REQUEST1")), recent);
        assertEquals(one, again);
        assertNotSame(one, again);
        assertSame(again, read(message(WireDestination.queue("REQUEST1")), recent));
        assertSame(again, recent[0]);
    }

    @Test
    void theOtherHeadersAreReadAsWithoutRecentDestinations() {
        WireDestination[] recent = new WireDestination[2];
        for (WireDestination to : new WireDestination[] {WireDestination.queue("Q"), null, WireDestination.queue("Q")}) {
            ByteBuf message = message(to);
            MessageHeaders plain = MessageHeaders.read(message);
            MessageHeaders kept = MessageHeaders.read(message, recent);
            assertEquals(plain.destination(), kept.destination());
            assertEquals(plain.messageId(), kept.messageId());
            assertEquals(plain.correlationId(), kept.correlationId());
            assertEquals(plain.type(), kept.type());
            assertEquals(plain.propertiesOffset(), kept.propertiesOffset());
            assertEquals(plain.bodyLength(), kept.bodyLength());
            assertEquals(0, message.readerIndex(), "the buffer's indexes are not moved");
        }
        assertNull(recent[1], "no destination, nothing kept");
    }

    private static WireDestination read(ByteBuf message, WireDestination[] recent) {
        return MessageHeaders.read(message, recent).destination();
    }

    private static ByteBuf message(WireDestination to) {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.TEXT;
        m.messageId = "ID:1";
        m.correlationId = "C1";
        m.destination = to;
        m.type = "order";
        m.properties.put("region", "EU");
        m.body = "order 1".getBytes(StandardCharsets.UTF_8);
        ByteBuf out = Unpooled.buffer();
        m.encode(out);
        return out;
    }
}
