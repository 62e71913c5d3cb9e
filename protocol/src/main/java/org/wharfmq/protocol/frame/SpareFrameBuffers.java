package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.internal.PlatformDependent;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * The memory of frames past the connections' kept buffers ({@link LargeFrameBuffers#takeWhole}: a 20 MB frame on the
 * third connection, a 100 MB one on any), given back when the frame and every message sliced from it are released,
 * and handed to the next such frame of about its size.
 *
 * <h2>Why</h2>
 * Each such frame's buffer was new memory: at 100 MB a {@code ByteBuffer.allocateDirect} zeroed by the JDK, mapped
 * page by page by the kernel (which zeroes each page again) and unmapped when the message went, a quarter of the
 * server's CPU at RR-4 100 MB (docs/performance-log.md). Memory given back and taken again is neither.
 *
 * <h2>How</h2>
 * {@link #take} hands out a buffer of exactly the frame's length: a slice of an idle buffer whose capacity lies
 * between that length and its {@link LargeFrameBuffers#sizeClass size class}, else of a new one of the size class.
 * The buffer under the slice gives its memory back here when its last reference goes, on whatever thread
 * ({@link #giveBack}); it is kept idle only while the idle memory and the bytes frames still await together stay
 * within the {@link LargeFrameMemory}'s ahead limit (a quarter of the JVM's direct memory), else freed. A frame counted
 * ahead takes precedence over idle memory: {@link #take} frees idle buffers until the two fit again. Idle memory not
 * taken for {@link #IDLE_MILLIS} ms is freed ({@link #letGoIdle}, at each take and give-back and on a timer of the
 * server's), so a burst of large messages leaves no memory held for long. Thread-safe: a monitor per JVM, taken a few
 * times per large frame.
 */
public final class SpareFrameBuffers {

    /** Idle memory not taken again for this long is freed: {@value} ms. */
    public static final long IDLE_MILLIS = 10_000;

    private final LargeFrameMemory memory;
    /** Idle memory, the longest idle first; guarded by this. */
    private final ArrayDeque<Idle> idle = new ArrayDeque<>();
    /** Buffers allocated new, ever; guarded by this. */
    private long allocated;
    /** Bytes allocated and not freed: in frames and messages, and idle. */
    private final AtomicLong liveBytes = new AtomicLong();

    SpareFrameBuffers(LargeFrameMemory memory) {
        this.memory = memory;
    }

    /**
     * An empty buffer of exactly {@code frameBytes}, which the caller owns: of idle memory of its size when there is
     * some, else new. Its memory comes back here when it and every slice of it are released.
     */
    ByteBuf take(ByteBufAllocator alloc, int frameBytes) {
        ByteBuffer memoryOf = idleOfSize(frameBytes);
        letGoPast(memory.aheadLimitBytes()); // the frame's bytes ahead were counted first: idle memory yields to them
        if (memoryOf == null) {
            memoryOf = ByteBuffer.allocateDirect(LargeFrameBuffers.sizeClass(frameBytes));
            liveBytes.addAndGet(memoryOf.capacity());
            synchronized (this) {
                allocated++;
            }
        }
        ByteBuf whole = new Spare(alloc, memoryOf, this);
        ByteBuf frame = whole.retainedSlice(0, frameBytes).clear();
        whole.release(); // the slice and its own slices hold it now
        return frame;
    }

    /** Frees idle memory that has not been taken for {@link #IDLE_MILLIS} ms. */
    public void letGoIdle() {
        long idleSince = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS);
        letGoFirstWhile(first -> first.sinceNanos() - idleSince <= 0);
    }

    /**
     * The direct memory these buffers take now, in use and idle: beside the pooled allocator's, which does not count
     * them (the server's {@code directUsedBytes} adds them).
     */
    public long liveBytes() {
        return liveBytes.get();
    }

    /** Buffers allocated new, ever (the others were idle memory taken again). */
    synchronized long allocated() {
        return allocated;
    }

    /** The idle memory that can hold a frame of {@code frameBytes} without wasting more than its size class, taken. */
    private ByteBuffer idleOfSize(int frameBytes) {
        letGoIdle();
        int most = LargeFrameBuffers.sizeClass(frameBytes);
        synchronized (this) {
            for (Iterator<Idle> it = idle.descendingIterator(); it.hasNext(); ) { // the most recently used first
                ByteBuffer candidate = it.next().memory();
                if (candidate.capacity() >= frameBytes && candidate.capacity() <= most) {
                    it.remove();
                    memory.spareGone(candidate.capacity());
                    return candidate.clear();
                }
            }
        }
        return null;
    }

    /** Frees idle memory, the longest idle first, until it and the bytes ahead fit within {@code limitBytes}. */
    private void letGoPast(long limitBytes) {
        letGoFirstWhile(first -> memory.aheadBytes() + memory.spareBytes() > limitBytes);
    }

    /** Frees idle memory, the longest idle first, while there is some and {@code condition} holds for the first. */
    private void letGoFirstWhile(Predicate<Idle> condition) {
        while (true) {
            ByteBuffer old;
            synchronized (this) {
                Idle first = idle.peekFirst();
                if (first == null || !condition.test(first)) {
                    return;
                }
                idle.pollFirst();
                old = first.memory();
                memory.spareGone(old.capacity());
            }
            free(old);
        }
    }

    /** The memory of a buffer from {@link #take}, its last reference gone: kept idle if it fits, else freed. */
    private void giveBack(ByteBuffer returned) {
        synchronized (this) {
            if (memory.tryKeepSpare(returned.capacity())) {
                idle.addLast(new Idle(returned, System.nanoTime()));
                returned = null;
            }
        }
        if (returned != null) {
            free(returned);
        }
        letGoIdle();
    }

    private void free(ByteBuffer memoryOf) {
        liveBytes.addAndGet(-memoryOf.capacity());
        PlatformDependent.freeDirectBuffer(memoryOf);
    }

    private record Idle(ByteBuffer memory, long sinceNanos) {
    }

    /** A direct buffer over memory of the spares, which gives it back when deallocated instead of freeing it. */
    private static final class Spare extends UnpooledUnsafeDirectByteBuf {

        private final ByteBuffer memoryOf;
        private final SpareFrameBuffers home;

        Spare(ByteBufAllocator alloc, ByteBuffer memoryOf, SpareFrameBuffers home) {
            super(alloc, memoryOf, memoryOf.capacity()); // wraps it without freeing it
            this.memoryOf = memoryOf;
            this.home = home;
            clear();
        }

        @Override
        protected void deallocate() {
            super.deallocate();
            home.giveBack(memoryOf);
        }
    }
}
