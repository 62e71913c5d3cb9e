package org.wharfmq.jms;

import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.ConnectedLink;
import org.wharfmq.client.core.CoreSettlement;

import org.wharfmq.jms.message.MessageAcknowledger;
import org.wharfmq.jms.message.WharfMessage;

import javax.jms.JMSException;
import javax.jms.Session;

/**
 * One session's acknowledgement and transactions in JMS terms, over the core's {@link CoreSettlement}, which settles
 * what the session's consumers consume as its mode says (ACK, COMMIT, ROLLBACK, the DUPS_OK batch, the rollback state,
 * the ledger of what was handed out, a transaction's work across a reconnection). This class marks a message handed
 * out again after a reconnection JMSRedelivered, gives {@code Message.acknowledge()} its acknowledger in
 * CLIENT_ACKNOWLEDGE mode, and gives the core's refusals as JMS exceptions (a commit of unknown outcome as a
 * JMSException with error code {@value #TRANSACTION_OUTCOME_UNKNOWN}).
 */
final class SessionSettlement {
    /** Error code of the JMSException a commit throws when its link was lost before the answer. */
    static final String TRANSACTION_OUTCOME_UNKNOWN = "TRANSACTION_OUTCOME_UNKNOWN";

    private final WharfConnection connection;
    private final CoreSettlement core;
    private final MessageAcknowledger clientAcknowledger;

    SessionSettlement(WharfConnection connection, CoreSettlement core, int mode) {
        this.connection = connection;
        this.core = core;
        this.clientAcknowledger = mode == Session.CLIENT_ACKNOWLEDGE ? this::acknowledge : null;
    }

    /** What {@code Message.acknowledge()} calls: in CLIENT_ACKNOWLEDGE mode, {@link #acknowledge}; else null. */
    MessageAcknowledger clientAcknowledger() {
        return clientAcknowledger;
    }

    int rollbackCount() {
        return core.rollbackCount();
    }

    /**
     * The application is about to get {@code message}, which came over {@code on}: marked JMSRedelivered if it was
     * handed out before a reconnection and not settled, and counted as the open transaction's work.
     */
    void handOut(WharfMessage message, ConnectedLink on) {
        if (core.handOut(message.getJMSMessageID(), on)) {
            message.setDeliveryCount(Math.max(2, message.getDeliveryCount()));
        }
    }

    /** A synchronous receive consumed a delivery. */
    void received(ClientConsumer consumer, long deliveryId) {
        core.received(consumer.core(), deliveryId);
    }

    /** {@link CoreSettlement#bodyRefused}. */
    void bodyRefused(ClientConsumer consumer, long deliveryId) throws JMSException {
        try {
            core.bodyRefused(consumer.core(), deliveryId);
        } catch (ClientException e) {
            throw toJms(e);
        }
    }

    /** A listener threw: {@link CoreSettlement#recoverAfterHandlerFailure}. */
    boolean recoverAfterListenerFailure() {
        return core.recoverAfterHandlerFailure();
    }

    /** A listener returned: {@link CoreSettlement#afterHandler}. */
    void afterListener(ClientConsumer consumer, long deliveryId, int rollbacksBefore) {
        core.afterHandler(consumer.core(), deliveryId, rollbacksBefore);
    }

    /** Message.acknowledge() in CLIENT_ACKNOWLEDGE mode: {@link CoreSettlement#acknowledge}. */
    void acknowledge() throws JMSException {
        try {
            core.acknowledge();
        } catch (ClientException e) {
            throw toJms(e);
        }
    }

    /** Session.commit(): {@link CoreSettlement#commit}. */
    void commit() throws JMSException {
        try {
            core.commit();
        } catch (ClientException e) {
            throw toJms(e);
        }
    }

    /** Session.rollback() and recover(): {@link CoreSettlement#rollback}. */
    void rollback(String what) throws JMSException {
        try {
            core.rollback(what);
        } catch (ClientException e) {
            throw toJms(e);
        }
    }

    private JMSException toJms(ClientException e) {
        if (e instanceof org.wharfmq.client.core.TransactionOutcomeUnknownException) {
            return new JMSException(e.getMessage(), TRANSACTION_OUTCOME_UNKNOWN);
        }
        return connection.toJms(e);
    }
}
