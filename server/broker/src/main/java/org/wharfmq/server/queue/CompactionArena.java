package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Right-sized copies of messages that wait, so that a waiting message no longer keeps alive the larger buffer it
 * arrived in.
 *
 * <h2>Why</h2>
 * A SEND's message is a slice of the buffer its read filled (no copy: the server never copies a body it delivers at
 * once). While the message is handed straight to a consumer, that costs nothing. A message that waits, though, keeps
 * the whole read buffer alive: a few kilobytes for one message, or a megabyte when one message of a large read is
 * still waiting after its neighbours were consumed. A queue of a million 2 KB messages held 4.9 KB per message.
 *
 * <h2>How</h2>
 * When a message is known to wait (a queue links it because no consumer takes it; a publication is routed to a
 * subscription that already has a backlog), its owner asks {@link #pinsMoreThanItself}; if so, it replaces the
 * message's bytes by {@link #copy}. Small messages are copied one after the other into a <i>region</i> (a direct
 * buffer of {@value #MIN_REGION_BYTES} bytes, doubling up to {@value #MAX_REGION_BYTES} while the owner keeps
 * messages waiting), each a slice of it, so they cost their own length and no size-class rounding; a region is freed
 * when the last of its messages is. Waiting messages of one queue leave it in order, so regions empty in order. A
 * message larger than a quarter of the largest region gets a buffer of its own.
 *
 * <p>Not thread-safe: each owner has its own arena (a queue, used under the queue's lock; a session, on its event
 * loop), which holds one reference to its current region until {@link #release}.
 */
public final class CompactionArena {

    /** The first region after the owner had nothing waiting: {@value} bytes. */
    static final int MIN_REGION_BYTES = 8 * 1024;
    /** The largest region: {@value} bytes (a page run of Netty's pooled allocator, so no rounding). */
    static final int MAX_REGION_BYTES = 64 * 1024;
    /** Messages longer than this get a buffer of their own: {@value} bytes. */
    static final int MAX_SHARED_BYTES = MAX_REGION_BYTES / 4;
    /**
     * Unused bytes a message may keep alive beyond a quarter of its length before it is worth copying: {@value}.
     * The pooled allocator's size classes leave up to a quarter unused anyway, so copying a message whose buffer is
     * within that gains nothing.
     */
    private static final int SLACK_BYTES = 64;

    private final ByteBufAllocator allocator;
    /** The region copies go into now (this arena's own reference), or null. */
    private ByteBuf region;
    private int nextRegionBytes = MIN_REGION_BYTES;

    /** An arena allocating its regions from {@code allocator}. */
    public CompactionArena(ByteBufAllocator allocator) {
        this.allocator = allocator;
    }

    /**
     * Whether the readable bytes of {@code content} keep alive a buffer larger than themselves by more than the
     * allocator's own rounding would: the capacity of the buffer under every slice and duplicate.
     */
    public static boolean pinsMoreThanItself(ByteBuf content) {
        int length = content.readableBytes();
        return underlying(content).capacity() - length > length / 4 + SLACK_BYTES;
    }

    /** The buffer under every slice and duplicate of {@code content}: the memory it keeps alive. */
    static ByteBuf underlying(ByteBuf content) {
        ByteBuf root = content;
        for (ByteBuf under = root.unwrap(); under != null; under = under.unwrap()) {
            root = under;
        }
        return root;
    }

    /**
     * A right-sized copy of the readable bytes of {@code content}, which is left as it was. The caller owns the
     * returned reference.
     */
    public ByteBuf copy(ByteBuf content) {
        int length = content.readableBytes();
        if (length > MAX_SHARED_BYTES) {
            return copyAlone(content, allocator);
        }
        if (region == null || region.writableBytes() < length) {
            while (nextRegionBytes < length) { // a message longer than the first region (up to MAX_SHARED_BYTES)
                nextRegionBytes = Math.min(2 * nextRegionBytes, MAX_REGION_BYTES);
            }
            ByteBuf next = allocator.directBuffer(nextRegionBytes, nextRegionBytes);
            nextRegionBytes = Math.min(2 * nextRegionBytes, MAX_REGION_BYTES);
            if (region != null) {
                region.release(); // its copies keep it alive as long as they live
            }
            region = next;
        }
        int at = region.writerIndex();
        region.writeBytes(content, content.readerIndex(), length);
        return region.retainedSlice(at, length);
    }

    /**
     * A copy of the readable bytes of {@code content} in a buffer of their own (for a message kept for long, such as
     * a topic's retained publication, which should not keep a region alive). The caller owns the returned reference.
     */
    public static ByteBuf copyAlone(ByteBuf content, ByteBufAllocator allocator) {
        int length = content.readableBytes();
        ByteBuf own = allocator.directBuffer(length, length);
        own.writeBytes(content, content.readerIndex(), length);
        return own;
    }

    /**
     * Gives up the current region (the copies in it keep it alive as long as they live); the next copy starts a
     * small one. Called when the owner no longer holds waiting messages, and when it closes.
     */
    public void release() {
        if (region != null) {
            region.release();
            region = null;
        }
        nextRegionBytes = MIN_REGION_BYTES;
    }
}
