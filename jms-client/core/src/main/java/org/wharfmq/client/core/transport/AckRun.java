package org.wharfmq.client.core.transport;

import org.wharfmq.protocol.frame.Frame;

/**
 * Merges the AUTO_ACKNOWLEDGE acknowledgements a {@link SocketLink} writes in one go. An ACK acknowledges every
 * delivery of its consumer up to its id, so of a run of unanswered ACKs that each name one consumer, with no other
 * frame between them, only the last of each consumer needs to be written: the server ends in the same state, and
 * has one frame to handle per consumer instead of one per message. The run keeps each consumer's first place (the
 * ACKs of different consumers are independent); a frame of any other kind, an answered ACK (a request: its answer
 * confirms what came before it) or an ACK naming several consumers ends the run, which is written before it.
 *
 * <p>At most {@value #MAX} consumers a run, so that finding a consumer's ACK stays a short scan; past it the run is
 * written and another starts. Owned by the holder of its link's write lock; allocates nothing.
 */
final class AckRun {

    /** Consumers in one run at most. */
    static final int MAX = 64;

    private final Frame.Ack[] acks = new Frame.Ack[MAX];
    private int size;

    /**
     * Takes {@code frame} into the run when it is an unanswered ACK of one consumer: in place of the run's ACK of the
     * same consumer and session, else at the run's end.
     *
     * @return false when it is another frame, or the run cannot take it (full, or its id is below the run's ACK of
     * that consumer): the caller writes the run, then the frame (or starts a new run with it)
     */
    boolean offer(Frame frame) {
        if (!(frame instanceof Frame.Ack ack) || ack.requestId() != 0 || ack.consumed().size() != 1) {
            return false;
        }
        Frame.Consumed consumed = ack.consumed().get(0);
        for (int i = 0; i < size; i++) {
            Frame.Ack earlier = acks[i];
            Frame.Consumed before = earlier.consumed().get(0);
            if (earlier.sessionId() == ack.sessionId() && before.consumerId() == consumed.consumerId()) {
                if (before.lastDeliveryId() > consumed.lastDeliveryId()) {
                    return false;
                }
                acks[i] = ack;
                return true;
            }
        }
        if (size == MAX) {
            return false;
        }
        acks[size++] = ack;
        return true;
    }

    /** The ACKs of the run, in order. */
    int size() {
        return size;
    }

    Frame.Ack get(int index) {
        return acks[index];
    }

    /** Empties the run (after writing it, or when writing failed). */
    void clear() {
        for (int i = 0; i < size; i++) {
            acks[i] = null;
        }
        size = 0;
    }
}
