package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.WireStrings;

/**
 * The strings a reader of many messages decoded last, one per slot, handed out again when the next message has the
 * same bytes in that slot: a consumer's messages mostly carry the same property names (and often the same string
 * values) in the same order, so it decodes each once rather than a {@code String} and its array per message. The
 * slot is the string's place in its message (a property's name or value, {@link PropertySection#read}).
 *
 * <p>Only ASCII strings are compared, char by byte, so no copy of the bytes is kept: the slot holds the string
 * itself. A string with any other character is decoded every time. Slots are plain references to immutable strings:
 * a reader racing another on the same object gets a right string either way, at worst decoded anew.
 */
public final class RecentStrings {

    private final String[] slots;

    /** @param slots how many strings of a message are remembered; the rest are decoded every time */
    public RecentStrings(int slots) {
        this.slots = new String[slots];
    }

    /**
     * The nullable string of {@code length} bytes (-1 for null) at {@code index}, checked by
     * {@link WireStrings#checkLength}: the one {@code slot} held when it has the same characters, else decoded (and
     * kept in the slot).
     */
    public String at(ByteBuf buf, int index, int length, int slot) {
        if (length <= 0 || slot >= slots.length) {
            return WireStrings.at(buf, index, length);
        }
        String recent = slots[slot];
        if (recent != null && sameAscii(buf, index, length, recent)) {
            return recent;
        }
        String decoded = WireStrings.at(buf, index, length);
        slots[slot] = decoded;
        return decoded;
    }

    /** Whether the {@code length} bytes at {@code index} are the ASCII characters of {@code s}. */
    static boolean sameAscii(ByteBuf buf, int index, int length, String s) {
        if (s.length() != length) {
            return false;
        }
        if (buf.hasArray()) {
            byte[] array = buf.array();
            int at = buf.arrayOffset() + index;
            for (int i = 0; i < length; i++) {
                byte b = array[at + i];
                if (b < 0 || b != s.charAt(i)) {
                    return false;
                }
            }
            return true;
        }
        for (int i = 0; i < length; i++) {
            byte b = buf.getByte(index + i);
            if (b < 0 || b != s.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
