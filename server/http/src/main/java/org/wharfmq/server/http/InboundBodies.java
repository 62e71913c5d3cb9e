package org.wharfmq.server.http;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The request bodies the HTTP listener is reading, over all its connections, held to
 * {@link HttpConfiguration#MAX_INBOUND_BODY_BYTES}: without it, callers uploading on many connections at once (up
 * to {@code maxConnections}, each a body up to its route's limit) could make the listener hold gigabytes before any
 * route's own bound saw them. {@link RequestLimit} takes a body's bytes when its head declares them (or as its chunks
 * come) and gives them back once the body has arrived whole, been refused, or its connection is lost. A body that
 * finds no other on its way is taken whatever its size, so a route's largest request is always served on a quiet
 * listener.
 */
final class InboundBodies {

    private final long max;
    private final AtomicLong held = new AtomicLong();

    InboundBodies(long max) {
        this.max = max;
    }

    /** The most bytes of bodies read at once ({@link HttpConfiguration#MAX_INBOUND_BODY_BYTES}). */
    long max() {
        return max;
    }

    /** The bytes of bodies being read now. */
    long held() {
        return held.get();
    }

    /**
     * Takes {@code bytes} more for a body that holds {@code own} already, unless they would take what is held past
     * the most while other bodies hold some.
     *
     * @return whether they were taken
     */
    boolean take(long bytes, long own) {
        while (true) {
            long now = held.get();
            if (now + bytes > max && now - own > 0) {
                return false;
            }
            if (held.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /** Gives back {@code bytes} taken. */
    void give(long bytes) {
        if (bytes > 0) {
            held.addAndGet(-bytes);
        }
    }
}
