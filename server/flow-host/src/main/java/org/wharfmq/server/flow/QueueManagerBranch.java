package org.wharfmq.server.flow;

import org.jboss.tm.LastResource;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

/**
 * A coordinated reader's XA session resource as the flow host enlists it: Narayana prepares and commits it after
 * the databases' ({@link LastResource}: ordered last), so that an output message is never visible before the
 * database work of its invocation has committed (a consumer of it finds the rows).
 *
 * <p>With crash points for tests, off unless the server's JVM runs with the system property {@value #PROPERTY}:
 * {@code beforeCommit} holds the commit of a prepared transaction (every resource prepared, the transaction manager's
 * decision logged, the databases committed), {@code beforePrepare} its prepare (the databases prepared, no decision
 * logged); either logs {@value #HOLDING} and waits there for good, so that a test can kill the server there.
 */
final class QueueManagerBranch implements XAResource, LastResource {

    static final String PROPERTY = "wharf.test.xa.hold";
    static final String HOLDING = "holding the queue manager's XA branch";

    private static final System.Logger LOG = System.getLogger(QueueManagerBranch.class.getName());

    private final XAResource resource;
    /** The crash point: "beforePrepare", "beforeCommit", or null. */
    private final String hold;

    private QueueManagerBranch(XAResource resource, String hold) {
        this.resource = resource;
        this.hold = hold;
    }

    /** How the readers enlist their session's resource: ordered last, held where the property says. */
    static UnaryOperator<XAResource> enlisting() {
        String hold = System.getProperty(PROPERTY);
        return resource -> new QueueManagerBranch(resource, hold);
    }

    private void holdAt(String point, Xid xid) {
        if (point.equals(hold)) {
            LOG.log(System.Logger.Level.WARNING, HOLDING + " " + point + " (" + PROPERTY + "): " + xid);
            while (true) {
                LockSupport.park(this);
            }
        }
    }

    @Override
    public void commit(Xid xid, boolean onePhase) throws XAException {
        if (!onePhase) {
            holdAt("beforeCommit", xid);
        }
        resource.commit(xid, onePhase);
    }

    @Override
    public void end(Xid xid, int flags) throws XAException {
        resource.end(xid, flags);
    }

    @Override
    public void forget(Xid xid) throws XAException {
        resource.forget(xid);
    }

    @Override
    public int getTransactionTimeout() throws XAException {
        return resource.getTransactionTimeout();
    }

    @Override
    public boolean isSameRM(XAResource other) throws XAException {
        return other == this;
    }

    @Override
    public int prepare(Xid xid) throws XAException {
        holdAt("beforePrepare", xid);
        return resource.prepare(xid);
    }

    @Override
    public Xid[] recover(int flag) throws XAException {
        return resource.recover(flag);
    }

    @Override
    public void rollback(Xid xid) throws XAException {
        resource.rollback(xid);
    }

    @Override
    public boolean setTransactionTimeout(int seconds) throws XAException {
        return resource.setTransactionTimeout(seconds);
    }

    @Override
    public void start(Xid xid, int flags) throws XAException {
        resource.start(xid, flags);
    }
}
