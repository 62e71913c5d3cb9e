package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * How a JMSCorrelationID set as bytes reads as a string, the one rule the client and the server share:
 * {@code "ID:"} followed by two lowercase hex digits per byte ({@code {0x0a, 0xbc}} is {@code "ID:0abc"}), the
 * form in which IBM MQ's JMS reports a byte correlation id. {@code Message.getJMSCorrelationID()} returns it, and
 * selectors and the server's correlation index see exactly it, so an application that selects on the value it
 * reads back ({@code JMSCorrelationID = 'ID:0abc'}) gets its message.
 *
 * <p>Going the other way, a string id in this form (either case) stands for the bytes its digits spell
 * ({@code getJMSCorrelationIDAsBytes}); any other string stands for its UTF-8 bytes. Selectors compare strings as
 * they are: a string id set as {@code "ID:0abc"} is the same id as the bytes, one set as {@code "ID:0ABC"} is not.
 * A string id is never converted, so string ids, the request/reply common case, cost nothing here.
 */
public final class CorrelationIds {
    /** What the string form of a byte correlation id starts with, as a JMS message id does. */
    public static final String BYTES_PREFIX = "ID:";

    private static final byte[] PREFIX_CHARS = BYTES_PREFIX.getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LOWER_HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private CorrelationIds() {
    }

    /** The string form of a correlation id set as bytes. */
    public static String ofBytes(byte[] id) {
        return ofBytes(Unpooled.wrappedBuffer(id), 0, id.length);
    }

    /**
     * The string form of the correlation id held in {@code length} bytes of {@code buf} from {@code index}, read in
     * place (the buffer's indexes do not move, nothing is copied out first).
     */
    public static String ofBytes(ByteBuf buf, int index, int length) {
        int prefix = PREFIX_CHARS.length;
        byte[] chars = new byte[prefix + 2 * length];
        System.arraycopy(PREFIX_CHARS, 0, chars, 0, prefix);
        for (int i = 0; i < length; i++) {
            int b = buf.getUnsignedByte(index + i);
            chars[prefix + 2 * i] = LOWER_HEX_DIGITS[b >>> 4];
            chars[prefix + 2 * i + 1] = LOWER_HEX_DIGITS[b & 0xf];
        }
        return new String(chars, StandardCharsets.ISO_8859_1);
    }

    /**
     * The bytes a correlation id set as a string stands for: the bytes its hex digits spell when it is
     * {@code "ID:"} and an even number of hex digits (either case), else its UTF-8 bytes.
     */
    public static byte[] toBytes(String id) {
        int prefix = BYTES_PREFIX.length();
        return isBytesForm(id) ? HexFormat.of().parseHex(id, prefix, id.length()) : id.getBytes(StandardCharsets.UTF_8);
    }

    private static boolean isBytesForm(String id) {
        int prefix = BYTES_PREFIX.length();
        if (!id.startsWith(BYTES_PREFIX) || (id.length() - prefix) % 2 != 0) {
            return false;
        }
        for (int i = prefix; i < id.length(); i++) {
            if (!HexFormat.isHexDigit(id.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
