package org.wharfmq.server.flow;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

/**
 * An XAResource that passes every call on to another: the base of the flow host's wrappers ({@link QueueManagerBranch},
 * {@link RecoveryLog}), each overriding the calls it adds to.
 */
abstract class ForwardingXAResource implements XAResource {

    /** The resource the calls go to. */
    final XAResource resource;

    ForwardingXAResource(XAResource resource) {
        this.resource = resource;
    }

    @Override
    public void commit(Xid xid, boolean onePhase) throws XAException {
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

    /** Whether {@code other} (or the resource it forwards to) is of the same resource manager as the resource. */
    @Override
    public boolean isSameRM(XAResource other) throws XAException {
        return resource.isSameRM(other instanceof ForwardingXAResource forwarding ? forwarding.resource : other);
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
