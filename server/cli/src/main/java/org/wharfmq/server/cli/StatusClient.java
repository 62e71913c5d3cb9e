package org.wharfmq.server.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.jms.WharfStatusSession;
import org.wharfmq.protocol.frame.ErrorCode;

import javax.jms.JMSException;
import javax.jms.JMSSecurityException;

/**
 * {@code wharf admin}'s way to a replica of a replicated queue manager, which refuses its JMS connection (ERROR
 * NOT_ACTIVE: a replica serves no applications): a status session on the same client address (docs/protocol.md,
 * "Status sessions"), as the same user, for the read-only commands ({@code display server}). The member refuses any
 * other command, naming the active member and the fix; that refusal is the command's answer (exit status 1), as any
 * other failed command's.
 */
final class StatusClient implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final WharfStatusSession session;

    private StatusClient(WharfStatusSession session) {
        this.session = session;
    }

    /** Whether {@code e}, the failure of a JMS connection, says the member(s) reached are replicas. */
    static boolean refusedAsReplica(JMSException e) {
        return ErrorCode.NOT_ACTIVE.name().equals(e.getErrorCode());
    }

    /** Opens a status session as the factory's user. */
    static StatusClient open(WharfConnectionFactory factory) throws JMSException {
        return new StatusClient(factory.createStatusSession());
    }

    /**
     * Runs {@code command}; its arguments are none (the read-only commands take none).
     *
     * @throws JMSSecurityException the user has no monitor permission (any more)
     * @throws JMSException         the session is lost
     */
    AdminClient.Reply send(String command) throws JMSException {
        try {
            return AdminClient.Reply.of(session.request(command));
        } catch (JMSSecurityException e) {
            throw e;
        } catch (JMSException e) {
            if (!ErrorCode.NOT_ACTIVE.name().equals(e.getErrorCode())) {
                throw e;
            }
            ObjectNode refused = JSON.createObjectNode();
            refused.put("command", command);
            refused.put("ok", false);
            refused.put("error", e.getMessage());
            refused.put("reason", ErrorCode.NOT_ACTIVE.name());
            return AdminClient.Reply.of(refused.toString());
        }
    }

    @Override
    public void close() {
        session.close();
    }
}
