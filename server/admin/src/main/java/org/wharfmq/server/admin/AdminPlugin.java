package org.wharfmq.server.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.security.AuditLog;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeSet;

/**
 * Serves the admin command queue, IBM MQ style: requests arrive on {@value SystemQueues#ADMIN_COMMAND_QUEUE} (over the
 * in-VM client, like any application's), each answered on its JMSReplyTo with JSON ({@link AdminProtocol}). A
 * {@link ServerPlugin}: start it after the plugins whose commands it serves
 * ({@code WharfServer.start(config, flowHost, new AdminPlugin(flowHost.adminCommands()))}), so the queue opens once
 * everything it answers for runs.
 *
 * <p>Commands: the management view's ({@link ManagementCommands}: queues, connections, subscriptions, the server),
 * {@code topics} (the text {@code wharf topic list} prints), and those other plugins give it ({@link AdminCommands}).
 * Both admin queues are created if missing, whatever autoCreate says, and kept.
 *
 * <p>Who may send a command is authorisation's business: the {@code SYSTEM.*} queues need the admin permission
 * (docs/security.md). The plugin itself connects anonymously in-VM, as the queue manager, which may do everything.
 * Every command is one audit line ({@link AuditLog#adminCommand}): who (the request's JMSXUserID, checked by the server
 * against the sender's login), what with which arguments (a password's as {@code ***}: a channel's, say), and the
 * result. Commands run one at a time, on the
 * plugin's session thread.
 */
public final class AdminPlugin implements ServerPlugin {

    private static final System.Logger LOG = System.getLogger(AdminPlugin.class.getName());
    /** Room left in a message for its headers and properties besides the JSON body. */
    private static final int ANSWER_HEADROOM_BYTES = 4096;

    private final List<AdminCommands> contributors;
    private final ObjectMapper json = new ObjectMapper();
    private final Map<String, AdminCommand> commands = new LinkedHashMap<>();
    /** The longest answer that fits in a message (maxMessageLength, less room for the headers). */
    private int maxAnswerBytes;
    private Connection connection;
    private Session session;
    private MessageProducer replier;

    /** An admin plugin that also serves {@code contributors}' commands. */
    public AdminPlugin(AdminCommands... contributors) {
        this.contributors = List.of(contributors);
    }

    /**
     * Opens the admin command queue and serves it.
     *
     * @throws IllegalStateException when two contributors name the same command, or this plugin has started before
     * @throws JMSException          when the in-VM connection cannot be opened
     */
    @Override
    public void start(Host server) throws JMSException {
        if (connection != null) {
            throw new IllegalStateException("This AdminPlugin has started already: give each server one of its own.");
        }
        commands.putAll(new ManagementCommands(server.management()).commands());
        commands.put("topics", request -> server.topicReport());
        for (AdminCommands contributor : contributors) {
            contributor.commands().forEach((name, command) -> {
                if (commands.putIfAbsent(name, command) != null) {
                    throw new IllegalStateException("Admin command '" + name + "' of " + contributor + " is taken by "
                            + "another: give it another name.");
                }
            });
        }
        maxAnswerBytes = server.config().maxMessageLength() - ANSWER_HEADROOM_BYTES;
        server.management().systemQueue(SystemQueues.ADMIN_COMMAND_QUEUE);
        server.management().systemQueue(SystemQueues.ADMIN_REPLY_QUEUE);
        connection = new WharfConnectionFactory(server.vmUrl()).createConnection();
        session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        replier = session.createProducer(null);
        session.createConsumer(session.createQueue(SystemQueues.ADMIN_COMMAND_QUEUE)).setMessageListener(this::serve);
        connection.start();
    }

    private void serve(Message message) {
        AdminRequest request;
        try {
            request = AdminRequest.of(message);
        } catch (JMSException e) {
            AuditLog.adminCommand("ADMIN a command whose properties cannot be read: " + e, false);
            return;
        }
        Exception failure = null;
        String answer;
        try {
            answer = answer(request.command(), json.valueToTree(command(request.command()).run(request)));
            int bytes = answer.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > maxAnswerBytes) {
                throw new AdminException(AdminProtocol.REFUSED, "The answer is " + bytes + " bytes long, more than "
                        + "fits in a message (setting maxMessageLength): ask for less (a pattern, a lower limit).");
            }
        } catch (Exception e) {
            failure = e;
            answer = failed(request.command(), e);
            LOG.log(System.Logger.Level.WARNING, "Admin command '" + request.command() + "' failed: " + text(e));
        }
        audit(request, failure == null ? null : text(failure));
        reply(message, answer, failure == null ? null : reason(failure));
    }

    /**
     * Runs a command for another face of the admin view (the web console, over HTTP), as the command queue would:
     * the same commands, the same answer (Jackson turns it into the same JSON), the same audit line. The caller has
     * checked that {@link AdminRequest#user()} may administer the queue manager.
     *
     * @return the command's result
     * @throws AdminException with reason {@link AdminProtocol#UNKNOWN} for a command this plugin does not answer;
     *                        otherwise what the command threw (see {@link AdminCommand#run})
     */
    public Object run(AdminRequest request) throws Exception {
        try {
            Object result = command(request.command()).run(request);
            audit(request, null);
            return result;
        } catch (Exception e) {
            audit(request, text(e));
            throw e;
        }
    }

    /**
     * Runs a command that only reads ({@code display-queues}, {@code browse-queue}, the flow host's {@code stats}
     * without a switch), without an audit line: for a face that polls (the web console asks every few seconds). The
     * caller sees to it that the command changes nothing.
     *
     * @throws AdminException with reason {@link AdminProtocol#UNKNOWN} for a command this plugin does not answer
     */
    public Object read(AdminRequest request) throws Exception {
        return command(request.command()).run(request);
    }

    /** The JSON answer of a success. */
    private String answer(String command, JsonNode result) throws JsonProcessingException {
        ObjectNode answer = json.createObjectNode();
        answer.put("command", command);
        answer.put("ok", true);
        answer.set("result", result);
        return json.writeValueAsString(answer);
    }

    /** The JSON answer of a failure: its message and reason. */
    private String failed(String command, Exception failure) {
        ObjectNode answer = json.createObjectNode();
        answer.put("command", command);
        answer.put("ok", false);
        answer.put("error", text(failure));
        answer.put("reason", reason(failure));
        return answer.toString();
    }

    private static String text(Exception e) {
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    private AdminCommand command(String name) {
        AdminCommand command = name == null ? null : commands.get(name);
        if (command == null) {
            throw new AdminException(AdminProtocol.UNKNOWN, (name == null ? "The request names no admin command "
                    + "(property " + AdminProtocol.COMMAND + ")" : "Unknown admin command '" + name + "'")
                    + ": this queue manager answers " + String.join(", ", new TreeSet<>(commands.keySet())) + ".");
        }
        return command;
    }

    /** The answer's reason for a failure (see {@link AdminProtocol}). */
    private static String reason(Exception e) {
        if (e instanceof AdminException admin) {
            return admin.reason();
        }
        if (e instanceof WharfException wharf) {
            return switch (wharf.code()) {
                case UNKNOWN_DESTINATION -> AdminProtocol.UNKNOWN;
                case INVALID_SELECTOR -> AdminProtocol.INVALID;
                default -> AdminProtocol.REFUSED;
            };
        }
        if (e instanceof NoSuchElementException) {
            return AdminProtocol.UNKNOWN;
        }
        return e instanceof IllegalArgumentException ? AdminProtocol.INVALID : AdminProtocol.FAILED;
    }

    /** Sends the answer to the request's JMSReplyTo, if it has one; {@code reason} is null after a success. */
    private void reply(Message request, String answer, String reason) {
        try {
            if (request.getJMSReplyTo() == null) {
                return;
            }
            TextMessage reply = session.createTextMessage(answer);
            reply.setBooleanProperty(AdminProtocol.OK, reason == null);
            if (reason != null) {
                reply.setStringProperty(AdminProtocol.ERROR, reason);
            }
            reply.setJMSCorrelationID(request.getJMSMessageID());
            replier.send(request.getJMSReplyTo(), reply);
        } catch (JMSException e) {
            LOG.log(System.Logger.Level.WARNING, "Cannot answer an admin command: " + e);
        }
    }

    /**
     * One audit line per command: who (the request's JMSXUserID, which the server checked against the sender's
     * login), what with which arguments, and the result. The broker's audit line for the same message says where it
     * came from.
     */
    private static void audit(AdminRequest request, String failure) {
        StringBuilder line = new StringBuilder("ADMIN ")
                .append(request.user() == null ? "anonymous client" : "user '" + request.user() + "'")
                .append(" ran '").append(request.command()).append('\'');
        request.arguments().forEach((property, value) -> line.append(' ').append(AdminRequest.nameOf(property))
                .append('=').append(property.toLowerCase(java.util.Locale.ROOT).endsWith("password") ? "***" : value));
        line.append(" (").append(request.origin()).append("): ")
                .append(failure == null ? "OK" : "FAILED: " + failure);
        AuditLog.adminCommand(line.toString(), failure == null);
    }

    @Override
    public void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (JMSException e) {
                LOG.log(System.Logger.Level.DEBUG, "Closing the admin connection: " + e);
            }
        }
    }
}
