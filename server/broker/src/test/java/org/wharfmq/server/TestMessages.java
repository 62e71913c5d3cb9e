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

    /**
     * Overwrites the type tag of property {@code name} in an encoded message, as a broken client could write it;
     * the section's length stays right. Returns the tag's offset in the message.
     */
    public static int setPropertyTag(ByteBuf encoded, String name, int tag) {
        int at = indexAfter(encoded, name);
        encoded.setByte(at, tag);
        return at - encoded.readerIndex();
    }

    /**
     * Overwrites the property count of an encoded message whose first property is {@code firstName}: a count above
     * the real one makes properties that end before their count, while the section's length stays right.
     */
    public static void setPropertyCount(ByteBuf encoded, String firstName, int count) {
        int nameAt = indexAfter(encoded, firstName) - firstName.getBytes(StandardCharsets.UTF_8).length;
        encoded.setShort(nameAt - Integer.BYTES - Short.BYTES, count);
    }

    private static int indexAfter(ByteBuf encoded, String name) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        int at = ByteBufUtil.indexOf(Unpooled.wrappedBuffer(bytes), encoded);
        if (at < 0) {
            throw new IllegalArgumentException("'" + name + "' is not in the message");
        }
        return at + bytes.length;
    }

    /** The readable bytes of a buffer, for byte-exact comparisons. */
    public static byte[] bytes(ByteBuf buf) {
        return ByteBufUtil.getBytes(buf);
    }
}
