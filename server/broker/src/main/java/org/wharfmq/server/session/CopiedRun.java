package org.wharfmq.server.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import org.wharfmq.server.Configuration;

/**
 * The buffer that the short DELIVER frames of one connection's sessions are copied into while one task of its loop
 * drains them one after another ({@link DeliveryHandOff}'s hand-over): one buffer of up to
 * {@link Configuration#DELIVER_BATCH_BYTES} for all of them, one outbound entry, and one flush of the connection when
 * the task moves on to another connection or ends, rather than a buffer, an entry and a flush per session. PS-N's
 * subscriber connections hold 25 sessions of one subscriber each, so a publication handed over was 25 buffers of one
 * frame each per connection.
 *
 * <p>Order: a connection's frames leave in the order they are copied or written through {@link #writeOut}; nothing
 * else writes to a connection while a task drains its sessions through a run. One per loop, that loop's thread only.
 */
final class CopiedRun {

    private static final int BATCH_BYTES = Configuration.DELIVER_BATCH_BYTES;

    /** The connection whose frames {@link #buffer} holds and which is owed a flush; null between connections. */
    private Channel channel;
    private ByteBuf buffer;

    /**
     * The buffer to copy a frame of {@code frameBytes} for {@code to} into, after the frames copied for it before:
     * the run's, or a new one when the run was another connection's (that one written and flushed) or is full
     * (written).
     */
    ByteBuf bufferFor(Channel to, int frameBytes) {
        if (channel != to) {
            end();
            channel = to;
        } else if (buffer != null && buffer.writableBytes() < frameBytes) {
            writeBuffer();
        }
        if (buffer == null) {
            buffer = to.alloc().ioBuffer(Math.max(BATCH_BYTES, frameBytes));
        }
        return buffer;
    }

    /** Writes what was copied for {@code to} so far: a frame that is not copied follows. */
    void writeOut(Channel to) {
        if (channel != to) {
            end();
            channel = to;
        } else {
            writeBuffer();
        }
    }

    /** Writes what was copied and flushes the run's connection: the task moves on or ends. */
    void end() {
        writeBuffer();
        if (channel != null) {
            channel.flush();
            channel = null;
        }
    }

    private void writeBuffer() {
        if (buffer != null) {
            channel.write(buffer, channel.voidPromise());
            buffer = null;
        }
    }
}
