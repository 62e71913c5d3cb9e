package org.wharfmq.server.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
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
 * against the sender's login), what with which arguments, and the result. Commands run one at a time, on the
 * plugin's session thread.
 */
public final class AdminPlugin implements ServerPlugin {

    private static final System.Logger LOG = System.getLogger(AdminPlugin.class.getName());

    private final List<AdminCommands> contributors;
    private final ObjectMapper json = new ObjectMapper();
    private final Map<String, AdminCommand> commands = new LinkedHashMap<>();
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
        ObjectNode answer = json.createObjectNode();
        answer.put("command", request.command());
        String failure = null;
        try {
            Object result = command(request.command()).run(request);
            answer.put("ok", true);
            answer.set("result", json.valueToTree(result));
        } catch (Exception e) {
            failure = e.getMessage() == null ? e.toString() : e.getMessage();
            answer.put("ok", false);
            answer.put("error", failure);
            answer.put("reason", reason(e));
            LOG.log(System.Logger.Level.WARNING, "Admin command '" + request.command() + "' failed: " + failure);
        }
        audit(request, failure);
        reply(message, answer, failure == null);
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

    private void reply(Message request, ObjectNode answer, boolean ok) {
        try {
            if (request.getJMSReplyTo() == null) {
                return;
            }
            TextMessage reply = session.createTextMessage(json.writeValueAsString(answer));
            reply.setBooleanProperty(AdminProtocol.OK, ok);
            if (!ok) {
                reply.setStringProperty(AdminProtocol.ERROR, answer.get("reason").asText());
            }
            reply.setJMSCorrelationID(request.getJMSMessageID());
            replier.send(request.getJMSReplyTo(), reply);
        } catch (JMSException | JsonProcessingException e) {
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
        request.arguments().forEach((property, value) -> line.append(' ').append(argumentName(property)).append('=')
                .append(value));
        line.append(" (request ").append(request.messageId()).append("): ")
                .append(failure == null ? "OK" : "FAILED: " + failure);
        AuditLog.adminCommand(line.toString(), failure == null);
    }

    /** {@code WharfMaxDepth} → {@code maxDepth}. */
    private static String argumentName(String property) {
        String name = property.substring("Wharf".length());
        return name.isEmpty() ? property : Character.toLowerCase(name.charAt(0)) + name.substring(1);
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
