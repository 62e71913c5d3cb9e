package org.wharfmq.client.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;

import java.nio.charset.StandardCharsets;

/** Messages in the protocol's encoding for the core's tests: a text body out, the text of a delivery back. */
final class TestMessages {
    private TestMessages() {
    }

    /** A non-persistent message to {@code destination} whose body is {@code text}, encoded. */
    static ByteBuf encoded(WireDestination destination, String text) {
        WireMessage m = new WireMessage();
        m.destination = destination;
        m.persistent = false;
        m.body = text.getBytes(StandardCharsets.UTF_8);
        ByteBuf out = Unpooled.buffer();
        m.encode(out);
        return out;
    }

    /** The body of a delivered message as text; releases the delivery's buffer. */
    static String text(Frame.Deliver d) {
        try {
            return new String(WireMessage.decode(d.message()).body, StandardCharsets.UTF_8);
        } finally {
            d.message().release();
        }
    }
}
