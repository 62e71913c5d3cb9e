package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.Frame;

import java.util.AbstractList;
import java.util.Objects;
import java.util.RandomAccess;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * The consumed-list of one non-durable subscriber's AUTO_ACKNOWLEDGE ACK while the frame waits in its link's queue
 * ({@link ConnectedLink#writeLater}): the consumer's later acknowledgements join it ({@link #advance}) rather than
 * queue a frame each. (A queue's or named subscription's acknowledgement is written before the consumer's next message
 * is handed out, so none joins it: {@link CoreSettlement}.) An ACK settles every delivery of the consumer up to its id, so the frame says all that the ones
 * it replaces would have said, in the same write. A non-durable subscriber's acknowledgements wait up to a CREDIT or
 * {@value ClientConfiguration#PIGGYBACK_MILLIS} ms: PS-N 100's subscribers queued about twenty an ACK frame, one
 * allocation of three objects and one frame for the server to read and settle each; now one per consumer per write.
 *
 * <p>The writer takes the position when it encodes the frame ({@link #get}, once); from then on {@link #advance} fails
 * and the consumer queues a new frame. The consumer's thread advances, whichever thread writes.
 */
final class QueuedAcknowledgement extends AbstractList<Frame.Consumed> implements RandomAccess {
    /** {@link #upTo} once the writer took it. */
    private static final long TAKEN = -1;
    private static final AtomicLongFieldUpdater<QueuedAcknowledgement> UP_TO =
            AtomicLongFieldUpdater.newUpdater(QueuedAcknowledgement.class, "upTo");

    /** The link the frame waits on: an acknowledgement for another link does not join it. */
    final ConnectedLink link;
    private final int consumerId;
    /** The last delivery acknowledged, or {@link #TAKEN}. */
    private volatile long upTo;
    /** What the writer took; guarded by this (only a writer and a frame's toString read it). */
    private Frame.Consumed taken;

    QueuedAcknowledgement(ConnectedLink link, int consumerId, long deliveryId) {
        this.link = link;
        this.consumerId = consumerId;
        this.upTo = deliveryId;
    }

    /**
     * Moves the acknowledgement on to {@code deliveryId}, a later delivery of the same consumer, when the frame has
     * not been taken for writing yet.
     *
     * @return false once it was taken: queue a new frame
     */
    boolean advance(long deliveryId) {
        long seen = upTo;
        return seen != TAKEN && UP_TO.compareAndSet(this, seen, deliveryId);
    }

    @Override
    public int size() {
        return 1;
    }

    /** The consumer and its last delivery acknowledged, fixed by the first call (the writer's). */
    @Override
    public synchronized Frame.Consumed get(int index) {
        Objects.checkIndex(index, 1);
        if (taken == null) {
            taken = new Frame.Consumed(consumerId, UP_TO.getAndSet(this, TAKEN));
        }
        return taken;
    }
}
