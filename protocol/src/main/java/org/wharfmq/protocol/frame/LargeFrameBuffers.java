package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The buffers one connection reads its large frames into, kept and reused.
 *
 * <h2>Why</h2>
 * A frame of {@value #LARGE_FRAME_BYTES} bytes or more is read into one buffer of its own size. Grown by doubling as
 * its bytes came, a 2 MiB frame was copied three times over and ended in a 4 MiB buffer: a whole chunk of the pooled
 * allocator, so a new one from the JDK for every frame, its memory zeroed and faulted in (a fifth of the server's CPU
 * at RR-4 2 MB, docs/performance-log.md), and a message that then waited was copied once more, out of a buffer twice
 * its size. Kept, the buffer serves the connection's next large frame without any of that.
 *
 * <h2>How</h2>
 * A connection keeps at most {@value #SLABS} buffers ("slabs"), each held by a reference of its own. A slab is free
 * when that is its only reference ({@code refCnt() == 1}): the frame read into it and every message sliced from that
 * frame have been released, on whatever thread. {@link #take} hands out a retained slice of a free slab of the frame's
 * size class (its length rounded up to an eighth of its highest power of two, so that a message in it does not keep
 * more than a quarter beyond itself alive and is not copied when it waits), else of a new slab in a place that is
 * empty or holds a free slab of another size. New slabs count against the JVM's {@link LargeFrameMemory}. When every
 * place holds a slab in use (messages of earlier frames still wait in queues) or the limit leaves no room (a 20 MB
 * frame on the third connection, a 100 MB one on any), {@link #takeWhole} gives the frame a buffer of exactly its
 * length, not kept by the connection (its memory goes back to the JVM's {@link SpareFrameBuffers} for the next such
 * frame), whose bytes still to come count as ahead of their arrival ({@link LargeFrameMemory#tryAhead})
 * until they come ({@link #missing}). Only when that too is refused does the caller grow the frame as its bytes come
 * ({@link #grownCapacity}): grown by doubling, a 100 MB frame was copied about 1.2 times over and took 220 MB of new,
 * zeroed memory.
 *
 * <p>Not thread-safe: owned by one connection's reader (a server connection's event loop, a client link's read turn).
 * Only the owner hands out slices, so a slab it sees free stays free until it hands it out.
 */
public final class LargeFrameBuffers {

    /** Frames this long or longer, length prefix included, are read into a buffer of their own size: {@value} bytes. */
    public static final int LARGE_FRAME_BYTES = 512 * 1024;
    /** Slabs one connection keeps: {@value}, one for the frame being read and one a message of the last may hold. */
    static final int SLABS = 2;

    private final LargeFrameMemory memory;
    /** Each slab's own reference, or null. */
    private final ByteBuf[] slabs = new ByteBuf[SLABS];
    /** Bytes of the frame in a buffer from {@link #takeWhole} counted as ahead of their arrival, and not yet come. */
    private long ahead;

    /** A connection's buffers, counted against {@code memory}. */
    public LargeFrameBuffers(LargeFrameMemory memory) {
        this.memory = memory;
    }

    /**
     * An empty buffer for a frame of {@code frameBytes} (length prefix included), of at least that capacity, which the
     * caller owns: a slice of a free or new slab. Null when none may be had: every slab is in use, or the JVM's limit
     * leaves no room for a new one.
     */
    public ByteBuf take(ByteBufAllocator alloc, int frameBytes) {
        int size = sizeClass(frameBytes);
        int place = -1;
        for (int i = 0; i < SLABS; i++) {
            ByteBuf slab = slabs[i];
            if (slab == null) {
                place = place < 0 || slabs[place] != null ? i : place; // an empty place before a free slab's
            } else if (slab.refCnt() == 1) {
                if (slab.capacity() == size) {
                    return slab.retainedSlice(0, size).clear();
                }
                place = place < 0 ? i : place;
            }
        }
        if (place < 0) {
            return null;
        }
        drop(place);
        if (!memory.tryTake(size)) {
            return null;
        }
        ByteBuf slab;
        try {
            slab = alloc.buffer(size, size);
        } catch (RuntimeException | OutOfMemoryError e) {
            memory.giveBack(size);
            throw e;
        }
        slabs[place] = slab;
        return slab.retainedSlice(0, size).clear();
    }

    /**
     * An empty buffer of exactly {@code frameBytes} for a frame of which {@code haveBytes} have come, not kept by the
     * connection: for when {@link #take} has none. Its memory is the JVM's idle memory of earlier such frames, or new,
     * and goes back there when released ({@link SpareFrameBuffers}). The bytes still to come count as ahead of their
     * arrival until {@link #missing} says they came. Null when the JVM's {@link LargeFrameMemory} refuses them (other
     * frames are ahead).
     */
    ByteBuf takeWhole(ByteBufAllocator alloc, int frameBytes, int haveBytes) {
        missing(0);
        long coming = (long) frameBytes - haveBytes;
        if (coming <= 0 || !memory.tryAhead(coming)) {
            return null;
        }
        try {
            ByteBuf whole = memory.spares().take(alloc, frameBytes);
            ahead = coming;
            return whole;
        } catch (RuntimeException | OutOfMemoryError e) {
            memory.arrived(coming);
            throw e;
        }
    }

    /** The frame from {@link #takeWhole} lacks only {@code bytes} more now (0: it is complete, or given up). */
    void missing(long bytes) {
        if (ahead > bytes) {
            memory.arrived(ahead - Math.max(0, bytes));
            ahead = Math.max(0, bytes);
        }
    }

    /** Lets go of every slab (messages still in one keep it alive until they are released). */
    public void release() {
        missing(0);
        for (int i = 0; i < SLABS; i++) {
            drop(i);
        }
    }

    /** The bytes this connection's slabs hold. */
    long heldBytes() {
        long held = 0;
        for (ByteBuf slab : slabs) {
            held += slab == null ? 0 : slab.capacity();
        }
        return held;
    }

    private void drop(int place) {
        ByteBuf slab = slabs[place];
        if (slab != null) {
            slabs[place] = null;
            memory.giveBack(slab.capacity());
            slab.release();
        }
    }

    /** {@code bytes} rounded up to a multiple of an eighth of its highest power of two. */
    static int sizeClass(int bytes) {
        int step = Integer.highestOneBit(bytes) >>> 3;
        return (int) Math.min(Integer.MAX_VALUE, ((long) bytes + step - 1) / step * step);
    }

    /**
     * The capacity of the next buffer of a frame of {@code frameBytes} grown as its bytes come, from one of
     * {@code capacity} that must hold {@code haveBytes}: doubling, but never past the frame's own size (which a
     * read that brings bytes beyond the frame, {@code haveBytes} larger, may exceed).
     */
    public static int grownCapacity(int capacity, int haveBytes, int frameBytes) {
        long doubled = Math.max(2L * capacity, haveBytes);
        return (int) Math.max(haveBytes, Math.min(doubled, frameBytes));
    }
}
