package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.frame.WireXid;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The XAResource of one XA session ({@link CoreSession} of mode {@link Frame#SESSION_XA}; the JMS facade's
 * {@code WharfXASession} hands it out as it is): what a transaction manager enlists to make the session's work part
 * of an XA transaction, and what it prepares, commits, rolls back and recovers branches through. The queue manager
 * keeps the branches (docs/jms-client.md, "XA"): {@code start} and {@code end} associate this session with one;
 * {@code prepare}, {@code commit}, {@code rollback} and {@code recover} may name any branch of the queue manager, so
 * they work on any of its resources, and after the session is closed, as long as its connection is open.
 *
 * <p>Every refusal is an {@link XAException} whose {@code errorCode} says what XA says it should (XAER_NOTA for an
 * unknown Xid, XAER_DUPID, XAER_PROTO, XAER_INVAL, XA_RBROLLBACK and XA_RBTIMEOUT for a branch rolled back, XAER_RMFAIL
 * when the queue manager cannot be reached) and whose message names the Xid and why. The queue manager never decides
 * a branch's outcome on its own, so no heuristic outcome is ever reported and {@link #forget} has nothing to forget.
 */
public final class CoreXaResource implements XAResource {

    private final CoreConnection connection;
    private final CoreSession session;
    /** The transaction timeout the next new branch gets, in seconds; 0: the queue manager's default. */
    private volatile int timeoutSeconds;
    /** The branch the session is associated with, from start to end; null otherwise. */
    private volatile WireXid associated;

    /** The XAResource of {@code session}, an XA session ({@link Frame#SESSION_XA}). */
    public CoreXaResource(CoreSession session) {
        this.connection = session.connection();
        this.session = session;
    }

    /** The branch the session is associated with now, or null. */
    public WireXid associated() {
        return associated;
    }

    /**
     * Associates the session with branch {@code xid}: a new one ({@code TMNOFLAGS}, with this resource's transaction
     * timeout), one that exists ({@code TMJOIN}, perhaps another session's) or the one this session suspended
     * ({@code TMRESUME}).
     */
    @Override
    public void start(Xid xid, int flags) throws XAException {
        WireXid wire = wire(xid, "start");
        if (flags != TMNOFLAGS && flags != TMJOIN && flags != TMRESUME) {
            throw xa(XAException.XAER_INVAL, "XA start of " + wire + " with flags 0x" + Integer.toHexString(flags)
                    + ": use TMNOFLAGS, TMJOIN or TMRESUME.");
        }
        WireXid current = associated;
        if (current != null) {
            throw xa(XAException.XAER_PROTO, "XA start of " + wire + ": the session is associated with " + current
                    + " already; end that association first.");
        }
        call(rid -> new Frame.XaStart(rid, session.id(), wire, flags, timeoutSeconds), "XA start of " + wire);
        associated = wire;
        session.settlement().inBranch(true);
    }

    /**
     * Ends ({@code TMSUCCESS}, {@code TMFAIL}) or suspends ({@code TMSUSPEND}) the session's association with branch
     * {@code xid}: what the session consumed in it becomes the branch's.
     */
    @Override
    public void end(Xid xid, int flags) throws XAException {
        WireXid wire = wire(xid, "end");
        if (flags != TMSUCCESS && flags != TMFAIL && flags != TMSUSPEND) {
            throw xa(XAException.XAER_INVAL, "XA end of " + wire + " with flags 0x" + Integer.toHexString(flags)
                    + ": use TMSUCCESS, TMFAIL or TMSUSPEND.");
        }
        if (!wire.equals(associated)) {
            throw xa(XAException.XAER_PROTO, "XA end of " + wire + ": the session is not associated with it"
                    + (associated == null ? "" : " but with " + associated) + "; start it before ending it.");
        }
        Frame.Error error;
        try {
            error = session.settlement().endBranch(list -> rid -> new Frame.XaEnd(rid, session.id(), wire, flags, list));
        } catch (ClientException e) {
            throw unreachable("XA end of " + wire, e);
        }
        if (error == null || error.code() == ErrorCode.XA_RBROLLBACK || error.code() == ErrorCode.XA_RBTIMEOUT) {
            associated = null;
            session.settlement().inBranch(false);
        }
        if (error != null) {
            throw toXAException(error);
        }
    }

    /** Prepares branch {@code xid}: {@code XA_OK} once it is durable, {@code XA_RDONLY} when it did nothing. */
    @Override
    public int prepare(Xid xid) throws XAException {
        WireXid wire = wire(xid, "prepare");
        Frame.XaResult result = xaResult(call(rid -> new Frame.XaPrepare(rid, wire), "XA prepare of " + wire),
                "XA prepare of " + wire);
        return result.result() == Frame.XA_RDONLY ? XA_RDONLY : XA_OK;
    }

    /** Commits branch {@code xid}: a prepared one, or with {@code onePhase} one that is ended and not prepared. */
    @Override
    public void commit(Xid xid, boolean onePhase) throws XAException {
        WireXid wire = wire(xid, "commit");
        call(rid -> new Frame.XaCommit(rid, wire, onePhase), "XA commit of " + wire);
    }

    /** Rolls back branch {@code xid}: its sends are dropped, what it consumed comes back redelivered. */
    @Override
    public void rollback(Xid xid) throws XAException {
        WireXid wire = wire(xid, "rollback");
        call(rid -> new Frame.XaRollback(rid, wire), "XA rollback of " + wire);
    }

    /**
     * The Xids of the queue manager's prepared branches, all of them at the start of a scan ({@code TMSTARTRSCAN});
     * none for the rest of it (a call without that flag).
     */
    @Override
    public Xid[] recover(int flags) throws XAException {
        if ((flags & ~(TMSTARTRSCAN | TMENDRSCAN)) != 0) {
            throw xa(XAException.XAER_INVAL, "XA recover with flags 0x" + Integer.toHexString(flags)
                    + ": use TMSTARTRSCAN, TMENDRSCAN, both or TMNOFLAGS.");
        }
        if ((flags & TMSTARTRSCAN) == 0) {
            return new Xid[0]; // the scan's start returned every prepared branch
        }
        List<WireXid> prepared = xaResult(call(Frame.XaRecover::new, "XA recover"), "XA recover").xids();
        Xid[] xids = new Xid[prepared.size()];
        for (int i = 0; i < xids.length; i++) {
            xids[i] = new CoreXid(prepared.get(i));
        }
        return xids;
    }

    /** Always XAER_NOTA: the queue manager never completes a branch heuristically, so it keeps none to forget. */
    @Override
    public void forget(Xid xid) throws XAException {
        WireXid wire = wire(xid, "forget");
        throw xa(XAException.XAER_NOTA, "XA forget of " + wire + ": the queue manager has no heuristically completed"
                + " branch of that Xid (it never decides a branch's outcome on its own).");
    }

    /** The transaction timeout set for new branches, in seconds; 0 when the queue manager's default applies. */
    @Override
    public int getTransactionTimeout() {
        return timeoutSeconds;
    }

    /**
     * Sets the transaction timeout of the branches this resource starts from now on, in seconds (0: the queue
     * manager's default, 300 s): a branch not prepared by then is rolled back by the queue manager.
     */
    @Override
    public boolean setTransactionTimeout(int seconds) throws XAException {
        if (seconds < 0) {
            throw xa(XAException.XAER_INVAL, "XA transaction timeout " + seconds + " s: it must be 0 (the queue "
                    + "manager's default) or more.");
        }
        timeoutSeconds = seconds;
        return true;
    }

    /**
     * Whether {@code other} reaches the same queue manager: another Wharf resource whose connection is now linked to
     * the same address and found a queue manager of the same name. (A name alone is not enough: every queue manager is
     * {@code WHARF} unless configured otherwise, and a transaction manager that took two of them for one would join a
     * branch where it does not exist.)
     */
    @Override
    public boolean isSameRM(XAResource other) {
        if (!(other instanceof CoreXaResource w)) {
            return false;
        }
        ConnectedLink mine = connection.current();
        ConnectedLink theirs = w.connection.current();
        return mine.serverName().equals(theirs.serverName()) && mine.address().equals(theirs.address());
    }

    // ---- helpers ----

    /**
     * Sends an XA request on the connection and waits for its answer, which it returns unless it is an ERROR. It does
     * not wait for a reconnection: while the connection is down (reconnecting, or lost) the call fails at once with
     * XAER_RMFAIL, as XA asks of a resource manager that cannot be reached, so that the transaction manager's own
     * recovery decides (a branch is completed by its Xid from any connection, the reconnected one included). Waiting
     * would hold the transaction manager's thread for as long as the reconnection tries.
     */
    private PendingRequests.Request call(IntFunction<Frame> frame, String what) throws XAException {
        PendingRequests.Request request;
        Frame.Error error;
        try {
            connection.checkOpen();
            ConnectedLink on = connection.usableOrNull();
            if (on == null) {
                throw new ClientException("the connection to Wharf at " + connection.current().address() + " is down"
                        + " (reconnecting, or lost)", null);
            }
            request = connection.register(on);
            on.write(frame.apply(request.id));
            error = connection.await(request, what);
        } catch (ClientException e) {
            throw unreachable(what, e);
        }
        if (error != null) {
            throw toXAException(error);
        }
        return request;
    }

    /** The XA_RESULT that answered {@code request}; XAER_RMERR when the server answered OK instead, saying so. */
    private static Frame.XaResult xaResult(PendingRequests.Request request, String what) throws XAException {
        try {
            return request.required(request.xaResult(), "XA_RESULT");
        } catch (ClientException e) {
            XAException failed = xa(XAException.XAER_RMERR, what + ": " + e.getMessage());
            failed.initCause(e);
            throw failed;
        }
    }

    private static WireXid wire(Xid xid, String what) throws XAException {
        if (xid == null) {
            throw xa(XAException.XAER_INVAL, "XA " + what + " needs an Xid, not null.");
        }
        try {
            return new WireXid(xid.getFormatId(), xid.getGlobalTransactionId(), xid.getBranchQualifier());
        } catch (MalformedFrameException e) {
            throw xa(XAException.XAER_INVAL, "XA " + what + " of " + xid + ": " + e.getMessage() + ".");
        }
    }

    /** XAER_RMFAIL: the connection is closed or lost, or the answer did not come. */
    private static XAException unreachable(String what, ClientException cause) {
        XAException e = xa(XAException.XAER_RMFAIL, what + " could not reach the queue manager: " + cause.getMessage());
        e.initCause(cause);
        return e;
    }

    /** The XAException for the server's refusal: its XA code, and its message naming the Xid and why. */
    private static XAException toXAException(Frame.Error error) {
        int code = switch (error.code()) {
            case XAER_NOTA -> XAException.XAER_NOTA;
            case XAER_PROTO, ILLEGAL_STATE -> XAException.XAER_PROTO;
            case XAER_DUPID -> XAException.XAER_DUPID;
            case XAER_INVAL -> XAException.XAER_INVAL;
            case XAER_RMFAIL -> XAException.XAER_RMFAIL;
            case XA_RBROLLBACK -> XAException.XA_RBROLLBACK;
            case XA_RBTIMEOUT -> XAException.XA_RBTIMEOUT;
            default -> XAException.XAER_RMERR;
        };
        return xa(code, error.message());
    }

    private static XAException xa(int code, String message) {
        XAException e = new XAException(message);
        e.errorCode = code;
        return e;
    }

    @Override
    public String toString() {
        return "CoreXaResource[session " + session.id() + ", " + connection + "]";
    }
}
