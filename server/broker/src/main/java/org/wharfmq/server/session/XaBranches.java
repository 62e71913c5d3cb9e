package org.wharfmq.server.session;

import io.netty.channel.EventLoop;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.WireXid;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.QueuedMessage;
import org.wharfmq.server.security.AuditLog;
import org.wharfmq.server.security.ConnectionAccess;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.store.Persistence;
import org.wharfmq.server.store.StoreCompletion;
import org.wharfmq.server.topic.TopicManager;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The queue manager's XA transaction branches, by Xid ({@link XaBranch}): one table per server, because a branch is
 * started by one session, may be joined by others on other connections, and is prepared, committed, rolled back or
 * recovered from any connection of its user (a transaction manager's recovery comes on a connection of its own).
 *
 * <h2>Rules (docs/jms-client.md, "XA"; docs/protocol.md, "XA")</h2>
 * <ul>
 *   <li>XA_START NOFLAGS creates a branch (XAER_DUPID if the Xid is known), JOIN associates one more session with it,
 *       RESUME takes back a suspended association; a prepared branch, or one being completed, takes no association
 *       (XAER_PROTO).</li>
 *   <li>XA_END hands the session's work and the deliveries it consumed to the branch. TMFAIL makes it rollback-only;
 *       so do a failed send, its session closing while associated, and its timeout.</li>
 *   <li>Prepare, commit and rollback need a branch with no active or suspended association (XAER_PROTO). Prepare of a
 *       branch that did nothing answers XA_RDONLY and forgets it; of a rollback-only one rolls it back
 *       (XA_RBROLLBACK). A prepared branch waits for its transaction manager for ever, across restarts: the queue
 *       manager never decides its outcome alone, so it reports no heuristic outcome either. One whose work is all
 *       non-persistent is prepared without a journal record ({@link Transaction#prepare}): a restart, which loses its
 *       messages, forgets it too (its commit is then answered XAER_NOTA).</li>
 *   <li>A branch belongs to the user that started it ({@link XaBranch#owner}, journaled with its PREPARE record):
 *       another user's XA_START JOIN or RESUME, prepare, commit or rollback of it is refused with NOT_AUTHORISED
 *       naming the Xid, and XA_RECOVER lists a user's own branches only. A user with the admin permission may also
 *       commit, roll back and list other users' branches, for recovery once their owner is gone. Every completion
 *       (commit, rollback, a prepare that rolls back or forgets a read-only branch), an admin's listing of other
 *       users' branches, and every refusal is a line in the audit log ({@link AuditLog#xa}).</li>
 *   <li>A branch not prepared within its transaction timeout (XA_START's, or {@link Configuration#XA_TRANSACTION_TIMEOUT_SECONDS})
 *       is rolled back: at once when no session is associated, else at its last XA_END (XA_RBTIMEOUT).</li>
 * </ul>
 *
 * <h2>Threading</h2>
 * The table and every branch's state are guarded by this object's monitor, held for in-memory work only: never
 * across a store call's wait, a queue call or a write. A branch's work is touched only by whoever took the branch out
 * of its state under the lock (by removing it, or marking it {@link XaBranch#completing}); an association's own work
 * is its session's until XA_END. Store completions run on the store's thread; answers are written from any thread
 * ({@link Replies}).
 */
public final class XaBranches {

    private static final System.Logger LOG = System.getLogger(XaBranches.class.getName());

    private final Persistence persistence;
    private final TopicManager topics;
    private final InstantSource clock;
    private final Map<WireXid, XaBranch> branches = new HashMap<>();

    /**
     * Branches whose records go to {@code persistence}; their publications are retained by {@code topics};
     * {@code clock} dates their prepares.
     */
    public XaBranches(Persistence persistence, TopicManager topics, InstantSource clock) {
        this.persistence = persistence;
        this.topics = topics;
        this.clock = clock;
    }

    /**
     * What an operator sees of one prepared branch (Management's view, IBM MQ's {@code dspmqtrn}, Artemis's
     * {@code listPreparedTransactions}): a branch in doubt, waiting for its transaction manager, holding its sends
     * invisible and the messages it consumed out of their queues.
     *
     * @param xid               the Xid as {@code Xid[formatId=..., gtrid=<hex>, bqual=<hex>]}
     * @param formatId          the Xid's format id
     * @param globalTransactionId the Xid's gtrid, in hex
     * @param branchQualifier   the Xid's bqual, in hex
     * @param owner             the user that started it ({@code ""}: an anonymous client), who may complete it besides
     *                          an admin; null when its PREPARE record, written before branches had owners, names none
     * @param preparedAt        when it was prepared, epoch ms; for a restored branch, when the queue manager started
     * @param ageMillis         how long it has been in doubt (for a restored branch: at least this long)
     * @param restored          whether it was restored from the journal at start, prepared before the restart
     * @param sends             the messages it sent, invisible until its commit
     * @param consumed          the messages it consumed, held out of their queues until its outcome
     */
    public record PreparedBranch(String xid, int formatId, String globalTransactionId, String branchQualifier,
                                 String owner, long preparedAt, long ageMillis, boolean restored, int sends,
                                 int consumed) {
    }

    /** The prepared branches, oldest first. */
    public synchronized List<PreparedBranch> prepared() {
        long now = clock.millis();
        HexFormat hex = HexFormat.of();
        List<PreparedBranch> prepared = new ArrayList<>();
        for (XaBranch branch : branches.values()) {
            if (branch.prepared) {
                prepared.add(new PreparedBranch(branch.xid.toString(), branch.xid.formatId(),
                        hex.formatHex(branch.xid.globalTransactionId()), hex.formatHex(branch.xid.branchQualifier()),
                        branch.owner, branch.preparedAt, Math.max(0, now - branch.preparedAt), branch.restored,
                        branch.work.sendCount(), branch.consumed.size()));
            }
        }
        prepared.sort(Comparator.comparingLong(PreparedBranch::preparedAt).thenComparing(PreparedBranch::xid));
        return prepared;
    }

    // ---- associations: a session's XA_START and XA_END, on its event loop ----

    /**
     * XA_START: a new branch ({@link Frame#XA_NOFLAGS}), one more association with an existing one
     * ({@link Frame#XA_JOIN}) or a suspended association taken back ({@link Frame#XA_RESUME}).
     *
     * @param timeoutSeconds the new branch's transaction timeout; 0 for the default
     * @param timer          runs the timeout
     * @param who            the session's connection: a new branch is its user's; another user's is refused
     * @return the branch the session is now associated with
     * @throws WharfException with an XA code when the flags, the Xid or the branch's state refuse it;
     *                        NOT_AUTHORISED when the branch is another user's
     */
    XaBranch start(WireXid xid, int flags, int timeoutSeconds, EventLoop timer, ConnectionAccess who) {
        synchronized (this) {
            XaBranch branch = branches.get(xid);
            switch (flags) {
                case Frame.XA_NOFLAGS -> {
                    if (branch != null) {
                        requireOwner(who, branch, "start");
                        throw xa(ErrorCode.XAER_DUPID, branch + " exists already: start it with TMJOIN to join it, or "
                                + "use a new Xid.");
                    }
                    branch = new XaBranch(this, xid, who.identity().user(), new Transaction(persistence, topics));
                    int seconds = timeoutSeconds > 0 ? timeoutSeconds : Configuration.XA_TRANSACTION_TIMEOUT_SECONDS;
                    XaBranch started = branch;
                    branch.timeout = timer.schedule(() -> expire(started, seconds), seconds, TimeUnit.SECONDS);
                    branches.put(xid, branch);
                }
                case Frame.XA_JOIN -> {
                    requireKnown(xid, branch, "joined");
                    requireOwner(who, branch, "join");
                    requireOpen(branch, "joined");
                    if (branch.timedOut) {
                        throw xa(ErrorCode.XA_RBTIMEOUT, branch + " cannot be joined: its transaction timeout "
                                + "expired, and it is rolled back when its last association ends.");
                    }
                    WharfException cause = branch.rollbackOnlyCause();
                    if (cause != null) {
                        throw xa(ErrorCode.XA_RBROLLBACK, branch + " cannot be joined: it can only roll back, because "
                                + cause.getMessage());
                    }
                }
                case Frame.XA_RESUME -> {
                    requireKnown(xid, branch, "resumed");
                    requireOwner(who, branch, "resume");
                    requireOpen(branch, "resumed");
                    if (branch.suspended == 0) {
                        throw xa(ErrorCode.XAER_PROTO, branch + " has no suspended association to resume: end it "
                                + "with TMSUSPEND first, or start with TMJOIN.");
                    }
                    branch.suspended--;
                }
                default -> throw xa(ErrorCode.XAER_INVAL, "XA start of " + xid + " with flags 0x"
                        + Integer.toHexString(flags) + ": use TMNOFLAGS, TMJOIN or TMRESUME.");
            }
            branch.associations++;
            return branch;
        }
    }

    /**
     * XA_END: the association ends ({@link Frame#XA_SUCCESS}, {@link Frame#XA_FAIL}) or is suspended
     * ({@link Frame#XA_SUSPEND}; the caller has checked the flags): {@code association}'s work and the deliveries
     * the session consumed in the branch become the branch's.
     *
     * @throws WharfException XA_RBROLLBACK or XA_RBTIMEOUT when the branch can only roll back (a timed-out one is
     *                        rolled back once its last association ends); the association has ended all the same
     */
    void end(XaBranch branch, Transaction association, int flags, List<QueuedMessage> consumed) {
        WharfException answer = null;
        boolean rollBack = false;
        synchronized (this) {
            association.moveInto(branch.work);
            branch.consumed.addAll(consumed);
            branch.associations--;
            if (flags == Frame.XA_SUSPEND) {
                branch.suspended++;
            } else if (flags == Frame.XA_FAIL) {
                branch.markRollbackOnly(xa(ErrorCode.XA_RBROLLBACK, "its work was ended with TMFAIL"));
            }
            if (branch.timedOut) {
                answer = xa(ErrorCode.XA_RBTIMEOUT, branch.xid + " was rolled back: its transaction timeout "
                        + "expired before it was prepared.");
                rollBack = branch.associations == 0 && branch.suspended == 0 && branches.remove(branch.xid, branch);
            } else if (branch.rollbackOnlyCause() != null) {
                answer = xa(ErrorCode.XA_RBROLLBACK, branch.xid + " can only roll back: "
                        + branch.rollbackOnlyCause().getMessage());
            }
        }
        if (rollBack) {
            rollBack(branch, StoreCompletion.NONE);
        }
        if (answer != null) {
            throw answer;
        }
    }

    /**
     * A session closed (or its connection ended) while associated with {@code branch}: its work joins the branch,
     * which can now only roll back, and is rolled back at once if nothing else is associated with it. What the session
     * consumed in it was not handed over, and goes back with the session's other deliveries.
     */
    void abandon(XaBranch branch, Transaction association, int sessionId) {
        boolean rollBack;
        synchronized (this) {
            association.moveInto(branch.work);
            branch.associations--;
            branch.markRollbackOnly(xa(ErrorCode.XA_RBROLLBACK, "session " + sessionId
                    + " closed while it was associated with it"));
            rollBack = branch.associations == 0 && branch.suspended == 0 && !branch.completing
                    && branches.remove(branch.xid, branch);
        }
        if (rollBack) {
            cancelTimeout(branch);
            rollBack(branch, StoreCompletion.NONE);
        }
    }

    // ---- completion: from any connection of the branch's user (commit and rollback: or an admin's) ----

    /**
     * XA_PREPARE: answers {@link Frame#XA_OK} once the branch's consumption and its PREPARE record are durable,
     * {@link Frame#XA_RDONLY} at once for a branch that did nothing (forgotten), or XA_RBROLLBACK for one that can only
     * roll back (rolled back).
     */
    public void prepare(int requestId, WireXid xid, ConnectionAccess who, Replies replies) {
        XaBranch branch;
        WharfException rolledBack = null;
        boolean readOnly = false;
        synchronized (this) {
            branch = branches.get(xid);
            requireKnown(xid, branch, "prepared");
            requireOwner(who, branch, "prepare");
            requireOpen(branch, "prepared again");
            requireUnassociated(branch, "prepared");
            WharfException cause = branch.rollbackOnlyCause();
            if (cause != null) {
                branches.remove(xid);
                rolledBack = xa(ErrorCode.XA_RBROLLBACK, xid + " was rolled back instead of prepared: "
                        + cause.getMessage());
            } else if (branch.readOnly()) {
                branches.remove(xid);
                readOnly = true;
            } else {
                branch.completing = true;
            }
        }
        cancelTimeout(branch);
        if (rolledBack != null) {
            audit(who, branch, "rolled back instead of prepared: " + branch.rollbackOnlyCause().getMessage(),
                    true);
        }
        if (rolledBackInstead(branch, rolledBack, requestId, replies)) {
            return;
        }
        if (readOnly) {
            audit(who, branch, "prepared read-only: it did nothing, and is forgotten", true);
            replies.xaResult(requestId, Frame.XA_RDONLY, List.of());
            return;
        }
        XaBranch preparing = branch;
        branch.work.prepare(branch.consumed, branch.storeKey(), failure -> {
            if (failure != null) {
                synchronized (this) {
                    branches.remove(xid, preparing);
                }
                LOG.log(System.Logger.Level.WARNING, "Could not store the prepare of " + xid + ": " + failure);
                audit(who, preparing, "rolled back: the store could not record its prepare (" + failure + ")", false);
                rollBack(preparing, StoreCompletion.NONE);
                replies.error(requestId, ErrorCode.XA_RBROLLBACK, xid + " was rolled back: the queue manager's "
                        + "store could not record its prepare (" + failure + ").", 0, 0);
                return;
            }
            synchronized (this) {
                preparing.prepared = true;
                preparing.preparedAt = clock.millis();
                preparing.completing = false;
            }
            replies.xaResult(requestId, Frame.XA_OK, List.of());
        });
    }

    /**
     * XA_COMMIT: a prepared branch (two-phase), or with {@code onePhase} one that is ended and not prepared. Answers
     * OK once the commit is durable; then its sends are offered and what it consumed is acknowledged.
     *
     * @param who       the committing connection: the branch's user's, or an admin's
     * @param eventLoop the committing connection's: completions and delayed sends run there
     */
    public void commit(int requestId, WireXid xid, boolean onePhase, ConnectionAccess who, EventLoop eventLoop,
                       Replies replies) {
        XaBranch branch;
        WharfException rolledBack = null;
        synchronized (this) {
            branch = branches.get(xid);
            requireKnown(xid, branch, "committed");
            requireOwnerOrAdmin(who, branch, "commit");
            requireOpen(branch, "committed");
            requireUnassociated(branch, "committed");
            if (onePhase) {
                if (branch.prepared) {
                    throw xa(ErrorCode.XAER_PROTO, branch + " is prepared: commit it in two phases (onePhase false).");
                }
                WharfException cause = branch.rollbackOnlyCause();
                if (cause != null) {
                    rolledBack = xa(ErrorCode.XA_RBROLLBACK, xid + " was rolled back instead of committed: "
                            + cause.getMessage());
                }
                branches.remove(xid);
            } else {
                if (!branch.prepared) {
                    throw xa(ErrorCode.XAER_PROTO, branch + " is not prepared: prepare it first, or commit it in one "
                            + "phase.");
                }
                branch.completing = true;
            }
        }
        cancelTimeout(branch);
        if (rolledBack != null) {
            audit(who, branch, "rolled back instead of committed: " + branch.rollbackOnlyCause().getMessage(),
                    true);
        }
        if (rolledBackInstead(branch, rolledBack, requestId, replies)) {
            return;
        }
        XaBranch committing = branch;
        List<QueuedMessage> consumed = branch.consumed;
        branch.work.commit(consumed, !onePhase, eventLoop, failure -> { // settles consumed first once durable
            if (failure == null) {
                if (!onePhase) {
                    synchronized (this) {
                        branches.remove(xid, committing);
                    }
                }
                audit(who, committing, onePhase ? "committed in one phase" : "committed", true);
                replies.ok(requestId);
                return;
            }
            LOG.log(System.Logger.Level.WARNING, "Could not store the commit of " + xid + ": " + failure);
            audit(who, committing, "commit failed, the store could not record it (" + failure + ")", false);
            if (onePhase) {
                returnConsumed(consumed);
                replies.error(requestId, ErrorCode.XA_RBROLLBACK, xid + " was rolled back: the queue manager's store "
                        + "could not record its commit (" + failure + ").", 0, 0);
            } else {
                synchronized (this) {
                    committing.completing = false;
                }
                replies.error(requestId, ErrorCode.XAER_RMFAIL, xid + " is still prepared: the queue manager's store "
                        + "could not record its commit (" + failure + "). Commit it again once the store works.", 0, 0);
            }
        });
    }

    /** XA_ROLLBACK: its sends are dropped and what it consumed goes back, redelivered; OK once that is recorded. */
    public void rollback(int requestId, WireXid xid, ConnectionAccess who, Replies replies) {
        XaBranch branch;
        synchronized (this) {
            branch = branches.get(xid);
            requireKnown(xid, branch, "rolled back");
            requireOwnerOrAdmin(who, branch, "roll back");
            requireOpen(branch, "rolled back");
            if (branch.associations > 0) {
                throw xa(ErrorCode.XAER_PROTO, branch + " cannot be rolled back while " + branch.associations
                        + " session(s) are associated with it: end their associations first.");
            }
            branches.remove(xid);
        }
        cancelTimeout(branch);
        XaBranch rollingBack = branch;
        rollBack(branch, failure -> {
            if (failure != null) {
                LOG.log(System.Logger.Level.WARNING, "Could not store the rollback of " + xid + ": " + failure);
            }
            audit(who, rollingBack, "rolled back" + (failure == null ? "" : " (its store could not record the rollback: "
                    + failure + ")"), failure == null);
            replies.ok(requestId);
        });
    }

    /**
     * XA_RECOVER: the Xids of the prepared branches, whose outcome their transaction managers have yet to say: those
     * of {@code who}'s user; every one for an admin, audited when it names other users' branches.
     */
    public List<WireXid> recover(ConnectionAccess who) {
        String user = who.identity().user();
        boolean admin = who.isAdmin();
        List<WireXid> listed = new ArrayList<>();
        List<String> others = new ArrayList<>();
        synchronized (this) {
            for (XaBranch branch : branches.values()) {
                if (branch.prepared) {
                    if (branch.ownedBy(user)) {
                        listed.add(branch.xid);
                    } else if (admin) {
                        listed.add(branch.xid);
                        others.add(branch.xid + " of " + branch.describeOwner());
                    }
                }
            }
        }
        if (!others.isEmpty()) {
            AuditLog.xa(who.identity(), who.peer(), "recover listed " + others.size() + " prepared branch(es) of "
                    + "other users, for recovery (admin): " + others, true);
        }
        return listed;
    }

    /** The Xids of every prepared branch. */
    private synchronized List<WireXid> preparedXids() {
        List<WireXid> prepared = new ArrayList<>();
        for (XaBranch branch : branches.values()) {
            if (branch.prepared) {
                prepared.add(branch.xid);
            }
        }
        return prepared;
    }

    // ---- recovery, before any client connects ----

    /**
     * A prepared branch recovered from the store: its sends reserved on their queues and its consumed messages held
     * out of theirs, as before the restart; it waits, PREPARED, for its transaction manager's commit or rollback.
     *
     * @param storeKey      the Xid and its owner as the PREPARE record holds them ({@link XaBranch#storeKey}); a
     *                      record written before branches had owners names none: only an admin may complete it
     * @param transactionId its store transaction id, under which its commit or rollback is recorded
     */
    public void recovered(byte[] storeKey, long transactionId, List<QueuedMessage> sends, List<QueuedMessage> consumed) {
        WireXid xid = XaBranch.xidOf(storeKey);
        Transaction work = Transaction.recoveredBranch(persistence, topics, transactionId);
        sends.forEach(work::recovered);
        XaBranch branch = new XaBranch(this, xid, XaBranch.ownerOf(storeKey), work);
        branch.consumed.addAll(consumed);
        branch.prepared = true;
        branch.restored = true;
        branch.preparedAt = clock.millis();
        XaBranch before;
        synchronized (this) {
            before = branches.put(xid, branch);
        }
        if (before != null) { // the store keeps one branch a key (Xid and owner): this Xid came with two owners
            LOG.log(System.Logger.Level.ERROR, "XA branch " + xid + " was restored twice from the journal, prepared"
                    + " by owner " + before.owner + " and by owner " + branch.owner + " (a journal of an older"
                    + " version): only the second can be completed; the messages the first holds stay held out of"
                    + " their queues.");
        }
    }

    /**
     * The store rolled back at recovery a PREPARE of branch {@code storeKey} that a later transaction prepared again
     * (a journal of a version that left the rollback of a branch restored after a restart unrecorded): says so, with
     * the Xid.
     */
    public void superseded(byte[] storeKey) {
        LOG.log(System.Logger.Level.WARNING, "XA branch " + XaBranch.xidOf(storeKey) + " was prepared twice in the"
                + " journal, by two transactions, the older never completed there: a journal written by a version that"
                + " did not record the rollback of a branch restored after a restart (a sender channel's batch backed"
                + " out when the channel started again, then sent again under the same batch id). The older one was"
                + " rolled back then: it is rolled back now, its rollback recorded, and the messages it alone held are"
                + " back on their queues; the later one is as it was (in doubt, or completed). Nothing to do.");
    }

    /** Logs the in-doubt branches recovery restored, if any, with their Xids: once, after recovery. */
    public void reportRecovered() {
        List<WireXid> inDoubt = preparedXids();
        if (!inDoubt.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, inDoubt.size() + " prepared XA transaction branch(es) restored, in "
                    + "doubt: their sends stay invisible and the messages they consumed stay held until their "
                    + "transaction manager commits or rolls them back (its recovery lists them with "
                    + "XAResource.recover): " + inDoubt);
        }
    }

    // ---- helpers ----

    /** Its transaction timeout expired: rolled back now unless associated (then at its last XA_END). */
    private void expire(XaBranch branch, int seconds) {
        synchronized (this) {
            if (branches.get(branch.xid) != branch || branch.prepared || branch.completing) {
                return;
            }
            if (branch.associations > 0) {
                branch.timedOut = true;
                return;
            }
            branches.remove(branch.xid);
        }
        LOG.log(System.Logger.Level.INFO, "XA branch " + branch.xid + " was rolled back: its transaction timeout of "
                + seconds + " s expired before it was prepared.");
        rollBack(branch, StoreCompletion.NONE);
    }

    /**
     * A prepare or one-phase commit of a branch that could only roll back (taken out of the table already): rolls it
     * back and answers {@code rolledBack}; false when there is no such cause.
     */
    private static boolean rolledBackInstead(XaBranch branch, WharfException rolledBack, int requestId, Replies replies) {
        if (rolledBack == null) {
            return false;
        }
        rollBack(branch, StoreCompletion.NONE);
        replies.error(requestId, rolledBack, 0, 0);
        return true;
    }

    /** The branch's sends are dropped and what it consumed goes back to its queues, redelivered. */
    private static void rollBack(XaBranch branch, StoreCompletion then) {
        branch.work.rollback(then);
        returnConsumed(branch.consumed);
    }

    private static void returnConsumed(List<QueuedMessage> consumed) {
        for (int i = 0; i < consumed.size(); i++) {
            consumed.get(i).countRedelivery();
        }
        BrokerSession.giveBack(consumed);
    }

    private static void cancelTimeout(XaBranch branch) {
        if (branch.timeout != null) {
            branch.timeout.cancel(false);
        }
    }

    private static void requireKnown(WireXid xid, XaBranch branch, String what) {
        if (branch == null) {
            throw xa(ErrorCode.XAER_NOTA, xid + " cannot be " + what + ": the queue manager knows no such branch (never"
                    + " started, already committed or rolled back, or rolled back by its transaction timeout).");
        }
    }

    /**
     * Refuses {@code who} a request about another user's branch with NOT_AUTHORISED naming the Xid (not the owner),
     * and audits the refusal with the owner.
     *
     * @param what the request, as a verb: "join", "prepare", ...
     */
    private static void requireOwner(ConnectionAccess who, XaBranch branch, String what) {
        if (!branch.ownedBy(who.identity().user())) {
            throw notYours(who, branch, what, "Only that user may " + what + " it: use an Xid of your own.");
        }
    }

    /** {@link #requireOwner}, but an admin may: a commit or rollback for recovery once its owner is gone. */
    private static void requireOwnerOrAdmin(ConnectionAccess who, XaBranch branch, String what) {
        if (!branch.ownedBy(who.identity().user()) && !who.isAdmin()) {
            throw notYours(who, branch, what, "Only that user's transaction manager may " + what + " it, or a user "
                    + "with the admin permission, for recovery once its owner is gone.");
        }
    }

    private static WharfException notYours(ConnectionAccess who, XaBranch branch, String what, String fix) {
        AuditLog.xaDenied(who.identity(), who.peer(), "XA " + what + " of " + branch.xid + ", a branch of "
                + branch.describeOwner());
        return new WharfException(ErrorCode.NOT_AUTHORISED, who.identity().describeAtStart() + " may not " + what + " "
                + branch.xid + ": that XA branch belongs to another user, the one that started it. " + fix);
    }

    /** A completion in the audit log: who, the Xid, whose branch it was, the result. */
    private static void audit(ConnectionAccess who, XaBranch branch, String result, boolean ok) {
        Identity identity = who.identity();
        if (!AuditLog.logs(identity, ok)) {
            return; // its line is built only when it is written
        }
        AuditLog.xa(identity, who.peer(), branch.xid + " " + result + (branch.ownedBy(identity.user()) ? ""
                : " (a branch of " + branch.describeOwner() + ": recovery by an admin)"), ok);
    }

    private static void requireOpen(XaBranch branch, String what) {
        if (branch.completing) {
            throw xa(ErrorCode.XAER_PROTO, branch + " cannot be " + what + ": a prepare, commit or rollback of it is "
                    + "under way.");
        }
        if (branch.prepared && !what.equals("committed") && !what.equals("rolled back")) {
            throw xa(ErrorCode.XAER_PROTO, branch + " cannot be " + what + ": it is prepared; commit or roll it back.");
        }
    }

    private static void requireUnassociated(XaBranch branch, String what) {
        if (branch.associations > 0 || branch.suspended > 0) {
            throw xa(ErrorCode.XAER_PROTO, branch + " cannot be " + what + " while sessions are associated with it ("
                    + branch.associations + " active, " + branch.suspended + " suspended): end their associations "
                    + "with TMSUCCESS or TMFAIL first.");
        }
    }

    private static WharfException xa(ErrorCode code, String message) {
        return new WharfException(code, message);
    }
}
