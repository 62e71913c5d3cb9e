package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.nio.charset.StandardCharsets;

/**
 * How strings travel: an int byte-length ({@code -1} for null) followed by UTF-8 bytes. Shared by frame and
 * message encoding so there is one rule for both.
 */
public final class WireStrings {
    private WireStrings() {
    }

    /** Writes a nullable string. */
    public static void write(ByteBuf out, String s) {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        int lengthIndex = out.writerIndex();
        out.writeInt(0);
        int written = ByteBufUtil.writeUtf8(out, s);
        out.setInt(lengthIndex, written);
    }

    /** Reads a nullable string, rejecting a length that runs past the buffer. */
    public static String read(ByteBuf in) {
        int length = checkLength(in.readInt(), in.readableBytes());
        String s = at(in, in.readerIndex(), length);
        in.skipBytes(Math.max(length, 0));
        return s;
    }

    /**
     * The nullable string of {@code length} bytes (-1 for null), which {@link #checkLength} has checked, at
     * {@code index} (after its length prefix), read in place: the buffer's indexes do not move.
     */
    public static String at(ByteBuf buf, int index, int length) {
        return length == -1 ? null : buf.toString(index, length, StandardCharsets.UTF_8);
    }

    /**
     * Checks a string's length prefix: -1 (null) or the length of bytes that fit in the {@code available} bytes
     * after the prefix. For readers that read a string in place ({@link #at}) rather than with {@link #read}.
     *
     * @return {@code length}
     * @throws MalformedFrameException when it is neither
     */
    public static int checkLength(int length, int available) {
        if (length < -1 || length > available) {
            throw new MalformedFrameException("string length " + length + " exceeds the " + available
                    + " bytes left in the frame");
        }
        return length;
    }
}
