package org.wharfmq.server.flow;

import org.jboss.tm.XAResourceWrapper;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

/**
 * A recovery scan's resource (an XA data source's or the queue manager's) that logs each branch in doubt the
 * transaction manager's recovery settles there, naming the resource: what an operator reads after a crash of the
 * server or of a database (docs/flows.md, "Coordinated transactions"). Everything else goes to the resource as it is.
 */
final class RecoveryLog extends ForwardingXAResource implements XAResourceWrapper {

    private static final System.Logger LOG = System.getLogger(RecoveryLog.class.getName());

    private final String owner;

    private RecoveryLog(String owner, XAResource resource) {
        super(resource);
        this.owner = owner;
    }

    /** {@code resources}, each logging what recovery settles in it as {@code owner}'s (e.g. "data source 'orders'"). */
    static XAResource[] wrap(String owner, XAResource[] resources) {
        XAResource[] logged = new XAResource[resources.length];
        for (int i = 0; i < resources.length; i++) {
            logged[i] = new RecoveryLog(owner, resources[i]);
        }
        return logged;
    }

    @Override
    public void commit(Xid xid, boolean onePhase) throws XAException {
        resource.commit(xid, onePhase);
        LOG.log(System.Logger.Level.INFO, "Recovery committed a branch left in doubt in " + owner + " (" + xid + "): "
                + "prepared, and the transaction manager's log holds its commit decision");
    }

    @Override
    public void rollback(Xid xid) throws XAException {
        resource.rollback(xid);
        LOG.log(System.Logger.Level.INFO, "Recovery rolled back a branch left in doubt in " + owner + " (" + xid
                + "): prepared, and the transaction manager's log holds no commit decision for it");
    }

    @Override
    public XAResource getResource() {
        return resource;
    }

    @Override
    public String getProductName() {
        return resource instanceof XAResourceWrapper wrapper ? wrapper.getProductName() : null;
    }

    @Override
    public String getProductVersion() {
        return resource instanceof XAResourceWrapper wrapper ? wrapper.getProductVersion() : null;
    }

    /** The resource's JNDI name, by which the transaction manager matches it with its log's records: the resource's. */
    @Override
    public String getJndiName() {
        return resource instanceof XAResourceWrapper wrapper ? wrapper.getJndiName() : null;
    }

    @Override
    public String toString() {
        return owner + " (" + resource + ")";
    }
}
