package org.wharfmq.protocol.frame;

import io.netty.util.internal.PlatformDependent;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory that the {@link LargeFrameBuffers} of every connection of a JVM may hold together: what lets a frame's
 * buffer be allocated at its full size as soon as its length is read. Without a limit, a client that sends the
 * 5-byte beginning of a 100 MiB frame on each of many connections would make the server allocate 100 MiB for each;
 * past the limit a frame's buffer grows only as its bytes come, which costs the sender the bytes.
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

    /** The one limit of this JVM. */
    public static final LargeFrameMemory JVM = new LargeFrameMemory(
            Math.min(MAX_DEFAULT_LIMIT_BYTES, PlatformDependent.maxDirectMemory() / DEFAULT_LIMIT_SHARE));

    private final long limitBytes;
    private final AtomicLong heldBytes = new AtomicLong();

    /** A limit of {@code limitBytes} (tests; the JVM has {@link #JVM}). */
    public LargeFrameMemory(long limitBytes) {
        this.limitBytes = limitBytes;
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

    /** The bytes held now, by all connections together. */
    public long heldBytes() {
        return heldBytes.get();
    }

    /** The limit, in bytes. */
    public long limitBytes() {
        return limitBytes;
    }
}
