package org.wharfmq.server.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.server.Configuration;

/**
 * The buffer that the short DELIVER frames of one connection's sessions are copied into while one task of its loop
 * drains them one after another ({@link DeliveryHandOff}'s hand-over): one buffer of up to
 * {@link Configuration#DELIVER_BATCH_BYTES} for all of them, one outbound entry, and one flush of the connection when
 * the task moves on to another connection or ends, rather than a buffer, an entry and a flush per session. PS-N's
 * subscriber connections hold 25 sessions of one subscriber each, so a publication handed over was 25 buffers of one
 * frame each per connection.
 *
 * <p><b>Shared deliveries</b> (docs/protocol.md): on a connection whose client keeps messages (SHARE_DELIVERIES,
 * {@link #share}), a short BytesMessage goes once per run, as DELIVER_KEEP into one of the client's slots, and its
 * deliveries to the connection's other consumers in the same run as DELIVER_SAME frames naming the slot (22 bytes
 * each, no copy of the message). A message is the same one when it is the same stored bytes ({@code
 * QueuedMessage.content()}: one object that every copy of a publication shares): each slot holds a reference to them
 * for the run, so no other message can take their place meanwhile. A run fills the slots in turn and gives none up
 * (past them, a message goes as DELIVER); they are forgotten when the run leaves the connection. The client's stay
 * filled, and the next run fills them again before it names them.
 *
 * <p>Order: a connection's frames leave in the order they are copied or written through {@link #writeOut}; nothing
 * else writes to a connection while a task drains its sessions through a run. One per loop, that loop's thread only.
 */
final class CopiedRun {

    private static final int BATCH_BYTES = Configuration.DELIVER_BATCH_BYTES;
    /** How many messages a connection's client keeps (its SHARE_DELIVERIES); unset: none. */
    private static final AttributeKey<Integer> KEPT = AttributeKey.valueOf("wharf.keptDeliveries");

    /** The connection whose frames {@link #buffer} holds and which is owed a flush; null between connections. */
    private Channel channel;
    private ByteBuf buffer;
    /** The stored bytes {@link #channel}'s client keeps in each slot, as this run sent them, each referenced. */
    private final ByteBuf[] kept = new ByteBuf[Configuration.DELIVER_KEPT_MESSAGES];
    /** How many of {@link #kept}'s slots {@link #channel}'s client has: 0 when it keeps no messages. */
    private int slots;
    /** How many of the slots this run filled: {@link #kept}'s first ones. */
    private int filled;

    /**
     * The client of {@code channel} keeps {@code slots} messages (its SHARE_DELIVERIES, 1 to
     * {@link Frame.ShareDeliveries#MAX_SLOTS}): from the next run on, its short BytesMessages go once per run.
     */
    static void share(Channel channel, int slots) {
        channel.attr(KEPT).set(Math.min(slots, Configuration.DELIVER_KEPT_MESSAGES));
    }

    /**
     * Appends the DELIVER of {@code message} (at most {@link Configuration#DELIVER_COPY_LIMIT_BYTES}) to {@code to}'s
     * frames: for a {@code publication} (whose copies other consumers of the connection may get) as DELIVER_SAME when
     * the run sent its bytes to the client's slots already, as DELIVER_KEEP when the client keeps messages and it is a
     * BytesMessage; else as DELIVER. Neither releases {@code message} nor moves its indices.
     */
    void copy(Channel to, int consumerId, long deliveryId, int deliveryCount, ByteBuf message, boolean publication) {
        enter(to);
        if (slots == 0 || !publication) {
            Frame.Deliver.writeFrame(room(Frame.Deliver.frameLength(message.readableBytes())), consumerId, deliveryId,
                    deliveryCount, message);
            return;
        }
        for (int slot = 0; slot < filled; slot++) {
            if (kept[slot] == message) {
                Frame.DeliverSame.writeFrame(room(Frame.DeliverSame.FRAME_BYTES), consumerId, deliveryId, deliveryCount,
                        slot);
                return;
            }
        }
        int length = message.readableBytes();
        if (filled == slots || length == 0 || message.getByte(message.readerIndex()) != BodyType.BYTES.code()) {
            // every slot taken: a slot is not given up within a run, so that the sessions after the first still find
            // the first publications when one run holds more than the slots (each session's deliveries come in
            // publication order, one session after another: replacing the oldest would miss every time). And the
            // client copies a kept message into an array of its own, as it does a BytesMessage anyway, where a
            // message of another kind is decoded where it lies in its read buffer: only a BytesMessage is kept
            Frame.Deliver.writeFrame(room(Frame.Deliver.frameLength(length)), consumerId, deliveryId, deliveryCount,
                    message);
            return;
        }
        int slot = filled++;
        Frame.DeliverKeep.writeFrame(room(Frame.DeliverKeep.frameLength(length)), consumerId, deliveryId, deliveryCount,
                slot, message);
        message.retain();
        kept[slot] = message;
    }

    /** Writes what was copied for {@code to} so far: a frame that is not copied follows (a DELIVER, not kept). */
    void writeOut(Channel to) {
        if (channel != to) {
            end();
            enter(to);
        } else {
            writeBuffer();
        }
    }

    /** Writes what was copied and flushes the run's connection, whose slots it forgets: the task moves on or ends. */
    void end() {
        writeBuffer();
        if (channel != null) {
            channel.flush();
            channel = null;
        }
        for (int slot = 0; slot < filled; slot++) {
            kept[slot].release();
            kept[slot] = null;
        }
        slots = 0;
        filled = 0;
    }

    /** The run goes on with {@code to}'s frames: another connection's written and flushed first. */
    private void enter(Channel to) {
        if (channel != to) {
            end();
            channel = to;
            Integer keeps = to.attr(KEPT).get();
            slots = keeps == null ? 0 : keeps;
        }
    }

    /** The buffer to append a frame of {@code frameBytes} to: the run's, or a new one when it is full (written). */
    private ByteBuf room(int frameBytes) {
        if (buffer != null && buffer.writableBytes() < frameBytes) {
            writeBuffer();
        }
        if (buffer == null) {
            buffer = channel.alloc().ioBuffer(Math.max(BATCH_BYTES, frameBytes));
        }
        return buffer;
    }

    private void writeBuffer() {
        if (buffer != null) {
            channel.write(buffer, channel.voidPromise());
            buffer = null;
        }
    }
}
