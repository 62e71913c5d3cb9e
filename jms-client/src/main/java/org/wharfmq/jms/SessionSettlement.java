package org.wharfmq.jms;

import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.CoreSettlement;

import org.wharfmq.jms.message.MessageAcknowledger;

import javax.jms.JMSException;
import javax.jms.Session;

/**
 * One session's acknowledgement and transactions in JMS terms, over the core's {@link CoreSettlement}, which settles
 * what the session's consumers consume as its mode says (ACK, COMMIT, ROLLBACK, the DUPS_OK batch, the rollback state,
 * the ledger of what was handed out, a transaction's work across a reconnection). This class gives
 * {@code Message.acknowledge()} its acknowledger in CLIENT_ACKNOWLEDGE mode, and the core's refusals as JMS exceptions
 * (a commit of unknown outcome as a JMSException with error code {@value #TRANSACTION_OUTCOME_UNKNOWN}).
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
