package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;

/** How the authentication frames carry a mechanism's opaque message: an int byte-length, then the bytes (never null). */
final class WireBytes {
    private WireBytes() {
    }

    static void write(ByteBuf out, byte[] bytes) {
        out.writeInt(bytes.length);
        out.writeBytes(bytes);
    }

    static byte[] read(ByteBuf in) {
        int length = in.readInt();
        if (length < 0 || length > in.readableBytes()) {
            throw new MalformedFrameException("byte-string length " + length + " exceeds the " + in.readableBytes()
                    + " bytes left in the frame");
        }
        byte[] bytes = new byte[length];
        in.readBytes(bytes);
        return bytes;
    }
}
