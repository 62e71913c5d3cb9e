package org.wharfmq.jms;

import org.wharfmq.client.core.CoreXaResource;

import org.wharfmq.protocol.frame.Frame;

import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import javax.jms.QueueSession;
import javax.jms.Session;
import javax.jms.TopicSession;
import javax.jms.TransactionInProgressException;
import javax.jms.XAQueueSession;
import javax.jms.XASession;
import javax.jms.XATopicSession;
import javax.transaction.xa.XAResource;

/**
 * A session that takes part in XA transactions through its {@link #getXAResource() XAResource}
 * (the core client's {@code CoreXaResource}), which a transaction manager enlists: between the resource's {@code start} and {@code end}
 * the session's sends belong to the transaction branch (sent without waiting; visible once the branch commits) and what
 * it consumes is acknowledged by the branch's commit (or comes back, redelivered, with its rollback). Outside a branch
 * it acknowledges as AUTO_ACKNOWLEDGE, and its persistent sends wait for the server as a non-transacted session's do.
 *
 * <p>As JMS requires, {@link #getTransacted()} is true and {@link #commit()} and {@link #rollback()} throw
 * TransactionInProgressException: the transaction manager completes the transaction.
 */
public final class WharfXASession extends WharfSession implements XASession, XAQueueSession, XATopicSession {

    private final CoreXaResource resource;

    WharfXASession(WharfConnection connection, MessagingDomain domain) {
        super(connection, Frame.SESSION_XA, domain);
        this.resource = new CoreXaResource(core());
    }

    @Override
    public XAResource getXAResource() {
        return resource;
    }

    @Override
    public Session getSession() throws JMSException {
        checkOpen();
        return this;
    }

    @Override
    public QueueSession getQueueSession() throws JMSException {
        checkOpen();
        return this;
    }

    @Override
    public TopicSession getTopicSession() throws JMSException {
        checkOpen();
        return this;
    }

    /** True, as JMS says for an XASession: its transactions are the transaction manager's. */
    @Override
    public boolean getTransacted() throws JMSException {
        super.getTransacted(); // refuses a closed session
        return true;
    }

    /** SESSION_TRANSACTED, as for any session whose work a transaction settles. */
    @Override
    public int getAcknowledgeMode() throws JMSException {
        super.getAcknowledgeMode(); // refuses a closed session
        return Session.SESSION_TRANSACTED;
    }

    /** Always refused: the transaction manager commits (JMS: TransactionInProgressException). */
    @Override
    public void commit() throws JMSException {
        checkOpen();
        throw new TransactionInProgressException("commit() is not allowed on an XASession: its transaction manager "
                + "commits the XA transaction (XAResource.commit).");
    }

    /** Always refused: the transaction manager rolls back (JMS: TransactionInProgressException). */
    @Override
    public void rollback() throws JMSException {
        checkOpen();
        throw new TransactionInProgressException("rollback() is not allowed on an XASession: its transaction manager "
                + "rolls back the XA transaction (XAResource.rollback).");
    }

    /** As for an AUTO_ACKNOWLEDGE session, outside an XA branch; refused inside one, where the branch settles. */
    @Override
    public void recover() throws JMSException {
        checkOpen();
        if (resource.associated() != null) {
            throw new IllegalStateException("recover() is not allowed while the session works in XA branch "
                    + resource.associated() + ": the branch's rollback returns what it consumed.");
        }
        super.recover();
    }
}
