package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;

/**
 * A heap buffer that a client link reads one large frame into, whose array no one writes again once the frame is in
 * it: not pooled, never compacted while anything refers to it, and let go to the garbage collector when released. So
 * a message decoded from it may keep its body where it lies in the array rather than copy it out
 * ({@link #holds}): a 100 MB message received is then one array of 100 MB, not two.
 */
public final class FrameArray extends UnpooledHeapByteBuf {

    private FrameArray(int bytes) {
        super(UnpooledByteBufAllocator.DEFAULT, new byte[bytes], bytes);
        clear();
    }

    /** An empty buffer of {@code bytes}, its capacity fixed, for one frame. */
    public static ByteBuf allocate(int bytes) {
        return new FrameArray(bytes);
    }

    /** Whether {@code content} (a slice or duplicate of one, at any depth) lies in a {@link FrameArray}. */
    public static boolean holds(ByteBuf content) {
        ByteBuf root = content;
        for (ByteBuf under = root.unwrap(); under != null; under = under.unwrap()) {
            root = under;
        }
        return root instanceof FrameArray;
    }
}
