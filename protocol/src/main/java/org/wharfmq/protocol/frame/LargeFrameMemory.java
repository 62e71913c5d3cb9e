package org.wharfmq.protocol.frame;

import io.netty.util.internal.PlatformDependent;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory that the {@link LargeFrameBuffers} of every connection of a JVM may hold together: what lets a frame's
 * buffer be allocated at its full size as soon as its length is read. Without a limit, a client that sends the
 * 5-byte beginning of a 100 MiB frame on each of many connections would make the server allocate 100 MiB for each;
 * past the limits a frame's buffer grows only as its bytes come, which costs the sender the bytes.
 *
 * <p>A second count, with a limit of its own, is of the bytes of frames that no kept buffer serves (a 20 MB frame
 * on the third connection, a 100 MB one on any), each read into a buffer of exactly its length allocated when its
 * length is read, and not yet arrived ({@link #tryAhead}): a frame may be ahead of its bytes while the bytes ahead
 * of all connections stay within {@link #DEFAULT_AHEAD_SHARE} of the direct memory limit, or when no other frame is
 * ahead (one frame of any size at a time). Past both, the frame grows as its bytes come, doubling: copied about 1.2
 * times over, into twice its size of new memory. The memory of such frames, once released, is kept idle for the next
 * ones ({@link #spares}) only within what that limit leaves: the bytes ahead and the idle memory together stay within
 * it, and a frame's bytes ahead come first.
 *
 * <p>The limit is {@link #DEFAULT_LIMIT_SHARE} of the JVM's direct memory limit ({@code -XX:MaxDirectMemorySize},
 * else {@code -Xmx}), at most {@value #MAX_DEFAULT_LIMIT_BYTES} bytes (64 MiB: 1/16 of a 1 GiB JVM), shared by every
 * server and client link of the JVM, as the direct memory it protects is. Thread-safe: connections on every event
 * loop take and give back.
 */
public final class LargeFrameMemory {

    /** The JVM's direct memory limit is divided by this for the default limit: {@value}. */
    public static final int DEFAULT_LIMIT_SHARE = 16;
    /** The default limit's ceiling: {@value} bytes. */
    public static final long MAX_DEFAULT_LIMIT_BYTES = 64L * 1024 * 1024;
    /**
     * The JVM's direct memory limit is divided by this for the bytes frames may be ahead of their arrival: {@value}
     * (256 MiB of a 1 GiB JVM: two 100 MB frames at once, beside the memory budget's half).
     */
    public static final int DEFAULT_AHEAD_SHARE = 4;

    /** The one limit of this JVM. */
    public static final LargeFrameMemory JVM = new LargeFrameMemory(
            Math.min(MAX_DEFAULT_LIMIT_BYTES, PlatformDependent.maxDirectMemory() / DEFAULT_LIMIT_SHARE),
            PlatformDependent.maxDirectMemory() / DEFAULT_AHEAD_SHARE);

    private final long limitBytes;
    private final long aheadLimitBytes;
    private final AtomicLong heldBytes = new AtomicLong();
    private final AtomicLong aheadBytes = new AtomicLong();
    private final AtomicLong spareBytes = new AtomicLong();
    private final SpareFrameBuffers spares = new SpareFrameBuffers(this);

    /** A limit of {@code limitBytes} for both counts (tests; the JVM has {@link #JVM}). */
    public LargeFrameMemory(long limitBytes) {
        this(limitBytes, limitBytes);
    }

    /** Limits of {@code limitBytes} for kept buffers and {@code aheadLimitBytes} for bytes ahead of their arrival. */
    public LargeFrameMemory(long limitBytes, long aheadLimitBytes) {
        this.limitBytes = limitBytes;
        this.aheadLimitBytes = aheadLimitBytes;
    }

    /** Counts {@code bytes} more as held if they fit under the limit; returns whether they did. */
    boolean tryTake(long bytes) {
        for (long held = heldBytes.get(); held + bytes <= limitBytes; held = heldBytes.get()) {
            if (heldBytes.compareAndSet(held, held + bytes)) {
                return true;
            }
        }
        return false;
    }

    /** Counts {@code bytes} taken earlier as no longer held. */
    void giveBack(long bytes) {
        heldBytes.addAndGet(-bytes);
    }

    /**
     * Counts {@code bytes} more as allocated ahead of their arrival if they fit under the ahead limit or if no other
     * bytes are ahead (one frame of any size at a time); returns whether they were counted. Idle memory does not
     * stand in a frame's way: it is freed to make room once the frame is counted.
     */
    boolean tryAhead(long bytes) {
        for (long ahead = aheadBytes.get(); ahead == 0 || ahead + bytes <= aheadLimitBytes; ahead = aheadBytes.get()) {
            if (aheadBytes.compareAndSet(ahead, ahead + bytes)) {
                return true;
            }
        }
        return false;
    }

    /** Counts {@code bytes} counted by {@link #tryAhead} as arrived, or as no longer expected. */
    void arrived(long bytes) {
        aheadBytes.addAndGet(-bytes);
    }

    /** Counts {@code bytes} more as idle memory if they fit, with the bytes ahead, under the ahead limit. */
    boolean tryKeepSpare(long bytes) {
        for (long spare = spareBytes.get(); aheadBytes.get() + spare + bytes <= aheadLimitBytes; spare = spareBytes.get()) {
            if (spareBytes.compareAndSet(spare, spare + bytes)) {
                return true;
            }
        }
        return false;
    }

    /** Counts {@code bytes} counted by {@link #tryKeepSpare} as no longer idle (taken again, or freed). */
    void spareGone(long bytes) {
        spareBytes.addAndGet(-bytes);
    }

    /** The idle memory of frames past the kept buffers, kept for the next ones. */
    public SpareFrameBuffers spares() {
        return spares;
    }

    /** The bytes allocated ahead of their arrival now, by all connections together. */
    public long aheadBytes() {
        return aheadBytes.get();
    }

    /** The bytes of idle memory kept for the next frames past the kept buffers ({@link #spares}). */
    public long spareBytes() {
        return spareBytes.get();
    }

    /** The bytes held now, by all connections together. */
    public long heldBytes() {
        return heldBytes.get();
    }

    /** The limit of the bytes ahead of their arrival, and of the idle memory with them. */
    public long aheadLimitBytes() {
        return aheadLimitBytes;
    }

    /** The limit, in bytes. */
    public long limitBytes() {
        return limitBytes;
    }
}
