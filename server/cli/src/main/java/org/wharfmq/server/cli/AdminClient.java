package org.wharfmq.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.admin.AdminProtocol;
import org.wharfmq.server.queue.SystemQueues;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.JMSSecurityException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.io.IOException;
import java.util.Map;

/**
 * The command line's end of the admin command queue (docs/operations.md, "Over the wire"): one connection to the
 * server, on which each request goes to {@code SYSTEM.ADMIN.COMMAND.QUEUE} and its answer is taken from
 * {@code SYSTEM.ADMIN.REPLY.QUEUE} by correlation id. {@code wharf admin} sends all of a script's commands over one;
 * {@code wharf flow} and {@code wharf topic} one each.
 */
final class AdminClient implements AutoCloseable {

    /** Exit status when the server answered that the command failed. */
    static final int COMMAND_FAILED = 1;
    /** Exit status when the server cannot be reached or does not answer. */
    static final int NO_ANSWER = 3;
    /** Long enough for a redeploy (which drains the running flow first) or a move of a deep queue. */
    static final long REPLY_TIMEOUT_MILLIS = 120_000;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String url;
    private final Connection connection;
    private final Session session;
    private final MessageProducer commands;
    private final Queue replies;

    private AdminClient(String url, Connection connection) throws JMSException {
        this.url = url;
        this.connection = connection;
        this.session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        this.commands = session.createProducer(session.createQueue(SystemQueues.ADMIN_COMMAND_QUEUE));
        // a command and its answer live only while this client waits for it: non-persistent, so that it is never run
        // again after a restart for a client long gone, and so that on a replicated queue manager it waits for no
        // other member (the active member's status while its replicas do not answer: docs/resilience.md)
        commands.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        this.replies = session.createQueue(SystemQueues.ADMIN_REPLY_QUEUE);
        connection.start();
    }

    /**
     * Connects to the server {@code server} names, as its user.
     *
     * @throws JMSException     when the server cannot be reached or refuses the login
     * @throws IOException      when the password cannot be read
     * @throws IllegalArgumentException when there is no console to ask the password at, or it is empty
     */
    static AdminClient connect(ServerOption server) throws JMSException, IOException {
        return connect(server.url, server.factory());
    }

    /**
     * Connects to {@code url} with {@code factory} (its user).
     *
     * @throws JMSException when the server cannot be reached or refuses the login (NOT_ACTIVE: a replica)
     */
    static AdminClient connect(String url, WharfConnectionFactory factory) throws JMSException {
        factory.setReconnectAttempts(0); // a lost connection fails the command waiting on it at once (AnswerLost)
        factory.setSyncSends(true); // a refused command (no permission) is refused at its send, non-persistent too
        Connection connection = factory.createConnection();
        try {
            return new AdminClient(url, connection);
        } catch (JMSException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    /** The server's URL, for messages. */
    String url() {
        return url;
    }

    /** A session to build a request with (a BytesMessage for a flow jar). */
    Session session() {
        return session;
    }

    /** Sends {@code command} with {@code arguments} (property name to value; null values are left out). */
    Reply send(String command, Map<String, ?> arguments) throws JMSException {
        Message request = session.createMessage();
        for (Map.Entry<String, ?> argument : arguments.entrySet()) {
            if (argument.getValue() != null) {
                request.setObjectProperty(argument.getKey(), argument.getValue());
            }
        }
        return send(command, request);
    }

    /**
     * Sends {@code request} as {@code command} and waits for its answer.
     *
     * @return the answer, or null when none came within {@link #REPLY_TIMEOUT_MILLIS}
     * @throws JMSSecurityException the user may not send admin commands
     * @throws AnswerLost           the connection was lost before the answer came
     */
    Reply send(String command, Message request) throws JMSException {
        request.setStringProperty(AdminProtocol.COMMAND, command);
        request.setJMSReplyTo(replies);
        try {
            commands.send(request);
            String selector = "JMSCorrelationID = '" + request.getJMSMessageID() + "'";
            try (MessageConsumer consumer = session.createConsumer(replies, selector)) {
                Message answer = consumer.receive(REPLY_TIMEOUT_MILLIS);
                return answer == null ? null : Reply.of(((TextMessage) answer).getText());
            }
        } catch (JMSSecurityException e) {
            throw e;
        } catch (JMSException e) {
            throw new AnswerLost(url, command, e);
        }
    }

    /**
     * The connection was lost (or the server failed the request) before a command's answer came: the command may have
     * been carried out or not. Its message names the server and what to do.
     */
    static final class AnswerLost extends JMSException {
        AnswerLost(String url, String command, JMSException cause) {
            super("the connection to " + url + " was lost before the answer to '" + command + "' came ("
                    + cause.getMessage() + "), so it may or may not have been carried out. The server stopped, or, a "
                    + "member of a replicated queue manager, it stopped being the active one: 'wharf admin --url URL "
                    + "display server' at each member's address names the active member (or give --url every "
                    + "member's address, comma-separated); check there before running the command again.",
                    cause.getErrorCode());
            setLinkedException(cause);
            initCause(cause);
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (JMSException e) {
            // the server went away meanwhile: nothing is left to close
        }
    }

    /**
     * A server's answer.
     *
     * @param json   the whole answer, as the server sent it
     * @param ok     whether the command succeeded
     * @param result what it answered (null after a failure)
     * @param error  why it failed (null after a success)
     * @param reason the failure's reason ({@link AdminProtocol#UNKNOWN}, ...), null after a success
     */
    record Reply(String json, boolean ok, JsonNode result, String error, String reason) {

        static Reply of(String text) throws JMSException {
            JsonNode answer;
            try {
                answer = JSON.readTree(text);
            } catch (IOException e) {
                throw new JMSException("The server's answer is not JSON (" + e.getMessage() + "): is it a Wharf "
                        + "server of this version?");
            }
            boolean ok = answer.path("ok").asBoolean(false);
            return new Reply(text, ok, ok ? answer.get("result") : null, ok ? null : answer.path("error").asText(),
                    ok ? null : answer.path("reason").asText(null));
        }
    }
}
