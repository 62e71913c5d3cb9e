package org.wharfmq.jms;

import org.wharfmq.protocol.frame.Frame;

import javax.jms.JMSContext;
import javax.jms.XAJMSContext;
import javax.transaction.xa.XAResource;

/**
 * The JMS 2.0 simplified API over an XA session ({@link WharfXAConnectionFactory#createXAContext()}): its work is
 * part of the XA transaction its {@link #getXAResource() XAResource} is enlisted in. As JMS requires,
 * {@link #getTransacted()} is true and {@link #commit()} and {@link #rollback()} throw
 * TransactionInProgressRuntimeException: the transaction manager completes the transaction. Outside a transaction
 * branch it acknowledges as AUTO_ACKNOWLEDGE ({@link WharfXASession}).
 */
public final class WharfXAJMSContext extends WharfJMSContext implements XAJMSContext {

    WharfXAJMSContext(WharfXAConnection connection) {
        super(connection, Frame.SESSION_XA);
    }

    @Override
    public JMSContext getContext() {
        checkOpen();
        return this;
    }

    @Override
    public XAResource getXAResource() {
        return ((WharfXASession) session()).getXAResource();
    }

    /** True, as JMS says for an XAJMSContext. */
    @Override
    public boolean getTransacted() {
        checkOpen();
        return true;
    }

    /** SESSION_TRANSACTED: a transaction settles the context's work. */
    @Override
    public int getSessionMode() {
        checkOpen();
        return JMSContext.SESSION_TRANSACTED;
    }
}
