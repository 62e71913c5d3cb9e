package org.wharfmq.server.flow;

import org.jboss.tm.LastResource;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

/**
 * A coordinated reader's XA session resource as the flow host enlists it: Narayana prepares and commits it after
 * the databases' ({@link LastResource}: ordered last), so that an output message is never visible before the database work of its
 * invocation has committed (a consumer of it finds the rows).
 *
 * <p>With a crash point for tests, off unless the server's JVM runs with the system property
 * {@value #PROPERTY}{@code =true}: then at the commit of a prepared transaction (every resource prepared, the
 * transaction manager's decision logged, the databases committed) it logs {@value #HOLDING} and waits there for good,
 * so that a test can kill the server between the prepare and the commit.
 */
final class QueueManagerBranch implements XAResource, LastResource {

    static final String PROPERTY = "wharf.test.xa.holdBeforeCommit";
    static final String HOLDING = "holding a prepared XA transaction before its commit";

    private static final System.Logger LOG = System.getLogger(QueueManagerBranch.class.getName());

    private final XAResource resource;
    private final boolean hold;

    private QueueManagerBranch(XAResource resource, boolean hold) {
        this.resource = resource;
        this.hold = hold;
    }

    /** How the readers enlist their session's resource: committed last, held before its commit under the property. */
    static UnaryOperator<XAResource> enlisting() {
        boolean hold = Boolean.getBoolean(PROPERTY);
        return resource -> new QueueManagerBranch(resource, hold);
    }

    @Override
    public void commit(Xid xid, boolean onePhase) throws XAException {
        if (hold && !onePhase) {
            LOG.log(System.Logger.Level.WARNING, HOLDING + " (" + PROPERTY + "): " + xid);
            while (true) {
                LockSupport.park(this);
            }
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
