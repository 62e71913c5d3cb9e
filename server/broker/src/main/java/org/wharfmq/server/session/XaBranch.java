package org.wharfmq.server.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.wharfmq.protocol.frame.WireStrings;
import org.wharfmq.protocol.frame.WireXid;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.QueuedMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;

/**
 * One XA transaction branch, known queue-manager-wide by its Xid: the {@link Transaction} that holds its work (what
 * its sessions sent in it, joined at each XA_END), the deliveries it consumed (taken from the sessions at XA_END, so a
 * session's close no longer returns them), and where it stands:
 *
 * <ul>
 *   <li>ACTIVE: sessions are associated with it ({@link #associations}), or one suspended its association;</li>
 *   <li>IDLE: ended, waiting for prepare, a one-phase commit or rollback;</li>
 *   <li>ROLLBACK_ONLY: ended (or active) with a reason it can only roll back ({@link #rollbackOnlyCause()}: TMFAIL,
 *       a failed send, its session closed, its timeout);</li>
 *   <li>PREPARED: its work and the PREPARE record are durable; it waits for its transaction manager's commit or
 *       rollback, however long, across restarts.</li>
 * </ul>
 *
 * It belongs to the user whose session started it ({@link #owner}): only that user joins, ends, prepares, commits,
 * rolls back or lists it; an admin may also commit, roll back or list it, for recovery ({@link XaBranches}).
 *
 * <p>Every field is guarded by the {@link XaBranches} monitor (its methods assert that the caller holds it); the work
 * itself is touched only by whoever took the branch
 * out of its state under that lock (an association's own work joins it at XA_END, never before).
 */
final class XaBranch {

    /** Where a branch stands (see the class comment). */
    enum State { ACTIVE, IDLE, ROLLBACK_ONLY, PREPARED }

    final WireXid xid;
    /**
     * The user that started it ({@code ""}: an anonymous connection, or the queue manager's own code); null for a
     * branch restored from a PREPARE record written before branches had owners, which only an admin may complete.
     */
    final String owner;
    final Transaction work;
    final List<QueuedMessage> consumed = new ArrayList<>();
    /** Sessions associated with it now. */
    int associations;
    /** Associations suspended (XA_END with TMSUSPEND), each to be resumed by its session. */
    int suspended;
    /** Prepared: its PREPARE record is durable. */
    boolean prepared;
    /** A prepare, commit or rollback is under way: every other request waits for it to end (XAER_PROTO). */
    boolean completing;
    /** Why it can only roll back, or null. */
    private WharfException rollbackOnly;
    /** Its transaction timeout expired while it was associated: its last XA_END rolls it back. */
    boolean timedOut;
    /**
     * When it was prepared (epoch ms, the queue manager's clock); for a branch restored from the journal, when the
     * queue manager started (the PREPARE record holds no time).
     */
    long preparedAt;
    /** Restored from the journal at start, prepared before. */
    boolean restored;
    /** Rolls it back when its transaction timeout expires; null once prepared or for a recovered branch. */
    ScheduledFuture<?> timeout;

    /** The table whose monitor guards its fields. */
    private final XaBranches branches;

    XaBranch(XaBranches branches, WireXid xid, String owner, Transaction work) {
        this.branches = branches;
        this.xid = xid;
        this.owner = owner;
        this.work = work;
    }

    /** Whether {@code user} started it. */
    boolean ownedBy(String user) {
        return owner != null && owner.equals(user);
    }

    /** Its owner as a log line names it. */
    String describeOwner() {
        return owner == null ? "no recorded owner (prepared before branches had owners)"
                : owner.isEmpty() ? "an anonymous client" : "user '" + owner + "'";
    }

    /** Where it stands; under the {@link XaBranches} monitor. */
    State state() {
        assert Thread.holdsLock(branches) : "the state of " + describe() + " is read under the XA branches' monitor";
        return stateNow();
    }

    private State stateNow() {
        if (prepared) {
            return State.PREPARED;
        }
        if (associations > 0 || suspended > 0) {
            return State.ACTIVE;
        }
        return rollbackOnlyCause() != null ? State.ROLLBACK_ONLY : State.IDLE;
    }

    /** Marks it rollback-only, keeping the first reason. */
    void markRollbackOnly(WharfException cause) {
        assert Thread.holdsLock(branches) : describe() + " is marked rollback-only under the XA branches' monitor";
        if (rollbackOnly == null) {
            rollbackOnly = cause;
        }
    }

    /** Why it can only roll back (marked so, or a send of it failed), or null. */
    WharfException rollbackOnlyCause() {
        return rollbackOnly != null ? rollbackOnly : work.rollbackOnlyCause();
    }

    /** Whether it did nothing: no send, no publication, nothing consumed (its prepare is read-only). */
    boolean readOnly() {
        return work.isEmpty() && consumed.isEmpty();
    }

    /**
     * The branch as the store keeps it in a PREPARE record: the XA frames' layout of its Xid, then its owner as a
     * string (int length, UTF-8). A record written before branches had owners ends after the Xid.
     */
    byte[] storeKey() {
        ByteBuf out = Unpooled.buffer(16 + xid.globalTransactionId().length + xid.branchQualifier().length
                + (owner == null ? 0 : 4 * owner.length()));
        xid.write(out);
        if (owner != null) {
            WireStrings.write(out, owner);
        }
        return ByteBufUtil.getBytes(out);
    }

    /** The Xid of a PREPARE record's {@link #storeKey}. */
    static WireXid xidOf(byte[] key) {
        return WireXid.read(Unpooled.wrappedBuffer(key));
    }

    /** The owner of a PREPARE record's {@link #storeKey}; null when the record names none (written before owners). */
    static String ownerOf(byte[] key) {
        ByteBuf in = Unpooled.wrappedBuffer(key);
        WireXid.read(in);
        return in.isReadable() ? WireStrings.read(in) : null;
    }

    @Override
    public String toString() {
        return describe() + " (" + stateNow() + ")";
    }

    private String describe() {
        return "XA branch " + xid;
    }
}
