package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;

import java.util.Arrays;

/**
 * A heap buffer that a client link reads one large frame into, or copies one delivered BytesMessage into
 * ({@link Frame.Deliver#readIntoOwnArray}), whose array no one writes again once the bytes are in it: not pooled, never
 * compacted while anything refers to it, and let go to the garbage collector when released. So a message decoded
 * from it may keep its body where it lies in the array rather than copy it out ({@link #holds}): a 100 MB message
 * received is then one array of 100 MB, not two.
 */
public final class FrameArray extends UnpooledHeapByteBuf {

    private FrameArray(byte[] array) {
        super(UnpooledByteBufAllocator.DEFAULT, array, array.length);
    }

    /** An empty buffer of {@code bytes}, its capacity fixed, for one frame. */
    public static ByteBuf allocate(int bytes) {
        return new FrameArray(new byte[bytes]).clear();
    }

    /** A copy of {@code length} bytes of {@code from} at {@code index}, its own array: readable, never written again. */
    public static ByteBuf copyOf(ByteBuf from, int index, int length) {
        byte[] array;
        if (from.hasArray()) {
            int at = from.arrayOffset() + index;
            array = Arrays.copyOfRange(from.array(), at, at + length); // no zeroing before the copy
        } else {
            array = new byte[length];
            from.getBytes(index, array);
        }
        return new FrameArray(array);
    }

    /**
     * {@code array}, readable whole, not copied: an array some {@link #copyOf} made, which the buffer shares with
     * every other that holds it (a kept message delivered again: {@link Frame.DeliverSame#readKept}).
     */
    public static ByteBuf of(byte[] array) {
        return new FrameArray(array);
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
