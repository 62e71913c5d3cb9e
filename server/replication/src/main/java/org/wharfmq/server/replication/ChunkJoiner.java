package org.wharfmq.server.replication;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

import java.nio.ByteBuffer;

/**
 * Puts a batch that came in several log entries ({@link BatchEntry#CHUNK}, a large message's record) together again,
 * so that the sink is given the batch whole or not at all.
 *
 * <p>A batch's pieces are consecutive entries of one term, from one origin, offsets from 0 up (the active member
 * appends them one after the other, and nothing of its journal in between). So a batch whose pieces stop is one its
 * appender did not finish: it lost the leadership (a new term's first entry comes next: {@link #newTerm}), or its
 * append failed (the next batch or first piece comes next). Its pieces are then dropped, here and on every member
 * alike, and its client was never confirmed (the confirmation waits for the last piece's commit).
 *
 * <p>Memory: while a batch is joined, its whole length is held here, on the heap ({@code byte[]}, allocated at its
 * first piece), until its last piece is applied; at most one batch at a time. A batch whose member keeps nothing of it
 * (the active member's own: its journal writer wrote it already) is followed, not held.
 *
 * <p>Owned by Ratis's state machine updater, the one thread that applies entries; {@link #pendingBytes} and
 * {@link #dropped} may be read from any thread.
 */
final class ChunkJoiner {

    private static final System.Logger LOG = System.getLogger(ChunkJoiner.class.getName());

    private final String member;
    private final int maxBatchBytes;
    /** How the limit is set, for the refusal of a larger batch. */
    private final String limitSetting;

    /** The batch being joined, or null when none is or this member does not keep it. */
    private byte[] joined;
    /** Whether a batch is under way (kept or only followed). */
    private boolean pending;
    private String origin;
    private long term;
    private int total;
    private int filled;
    private volatile int pendingBytes;
    private volatile long dropped;

    ChunkJoiner(String member, int maxBatchBytes, String limitSetting) {
        this.member = member;
        this.maxBatchBytes = maxBatchBytes;
        this.limitSetting = limitSetting;
    }

    /**
     * Takes a piece ({@code entry}, appended by {@code origin} in {@code term}). Returns true when it was the last of
     * its batch: {@link #take} then gives the batch. {@code keep}, read at a batch's first piece, says whether this
     * member holds the batch's bytes (else only its end is noted).
     *
     * @throws IllegalStateException for a batch above this member's limit (its members' limits differ), or a piece
     *                               that does not fit its batch
     */
    boolean offer(long term, String origin, ByteString entry, boolean keep) {
        int length = BatchEntry.chunkTotal(entry);
        int offset = BatchEntry.chunkOffset(entry);
        ByteBuffer piece = BatchEntry.chunkBytes(entry);
        if (length > maxBatchBytes) {
            throw new IllegalStateException("Replication member " + member + " was sent a batch of " + length
                    + " bytes by member " + origin + ", more than its own limit of " + maxBatchBytes + " bytes ("
                    + limitSetting + "): the members' maxMessageLength differ. Give every member the same "
                    + "maxMessageLength, then start " + member + " again.");
        }
        if (length < 1 || offset < 0 || piece.remaining() > length - offset) {
            throw new IllegalStateException("Replication member " + member + " was sent a piece of " + piece.remaining()
                    + " bytes at offset " + offset + " of a batch of " + length + " bytes by member " + origin
                    + ": every member must run the same Wharf version.");
        }
        if (offset == 0) {
            drop("the next batch began");
            pending = true;
            this.origin = origin;
            this.term = term;
            this.total = length;
            this.filled = 0;
            this.joined = keep ? new byte[length] : null;
        } else if (!pending || term != this.term || !origin.equals(this.origin) || offset != filled
                || length != total) {
            // not the next piece of the batch under way: both are dropped (the log never holds such a piece; a batch
            // is never half applied, whatever comes)
            drop("a piece at offset " + offset + " of member " + origin + "'s batch in term " + term + " came");
            LOG.log(System.Logger.Level.WARNING, () -> "Replication member " + member + " dropped a piece of a batch "
                    + "whose earlier pieces it does not have (offset " + offset + ", member " + origin + ", term "
                    + term + ")");
            return false;
        }
        int bytes = piece.remaining();
        if (joined != null) {
            piece.get(joined, offset, bytes);
        }
        filled = offset + bytes;
        pendingBytes = filled;
        return filled == total;
    }

    /**
     * The batch whose last piece {@link #offer} just took, whole (null when this member did not keep it); the joiner
     * then holds nothing.
     */
    ByteBuffer take() {
        if (!pending || filled != total) {
            throw new IllegalStateException("no batch is complete");
        }
        ByteBuffer batch = joined == null ? null : ByteBuffer.wrap(joined);
        clear();
        return batch;
    }

    /** An entry of {@code term} was applied (a leader's first entry, a change of members): an older batch ended. */
    void newTerm(long term) {
        if (pending && term > this.term) {
            drop("term " + term + " began");
        }
    }

    /** A batch of one entry was applied: a batch under way ended unfinished. */
    void interrupt() {
        if (pending) {
            drop("a batch of one entry came");
        }
    }

    /** Forgets the batch under way: a snapshot replaces this member's state. */
    void reset() {
        clear();
    }

    /** Whether a batch is under way: a snapshot now would be inside it. */
    boolean pending() {
        return pending;
    }

    /** The bytes of the batch under way so far (0 when none). */
    int pendingBytes() {
        return pendingBytes;
    }

    /** Batches dropped unfinished since this joiner was made. */
    long dropped() {
        return dropped;
    }

    private void drop(String why) {
        if (!pending) {
            return;
        }
        String from = origin;
        long of = term;
        int had = filled;
        int length = total;
        LOG.log(System.Logger.Level.INFO, () -> "Replication member " + member + " dropped " + had + " of the "
                + length + " bytes of member " + from + "'s batch in term " + of + " (" + why + "): its appender did "
                + "not finish it, and its client was not confirmed");
        dropped++;
        clear();
    }

    private void clear() {
        pending = false;
        joined = null;
        origin = null;
        filled = 0;
        total = 0;
        pendingBytes = 0;
    }
}
