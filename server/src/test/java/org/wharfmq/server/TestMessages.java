package org.wharfmq.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;

import java.nio.charset.StandardCharsets;

/** Builds encoded messages for tests. */
public final class TestMessages {

    private TestMessages() {
    }

    /** A non-persistent text message for {@code queue}, priority 4. */
    public static WireMessage text(String queue, String body) {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.TEXT;
        m.persistent = false;
        m.destination = WireDestination.queue(queue);
        m.messageId = "ID:test-" + body;
        m.body = body.getBytes(StandardCharsets.UTF_8);
        return m;
    }

    /** The message encoded into a new heap buffer. */
    public static ByteBuf encode(WireMessage m) {
        ByteBuf buf = Unpooled.buffer();
        m.encode(buf);
        return buf;
    }

    /** The body of an encoded text message. */
    public static String body(ByteBuf encoded) {
        return new String(WireMessage.decode(encoded.duplicate()).body, StandardCharsets.UTF_8);
    }

    /** The readable bytes of a buffer, for byte-exact comparisons. */
    public static byte[] bytes(ByteBuf buf) {
        return ByteBufUtil.getBytes(buf);
    }
}
