package org.wharfmq.server.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.ConnectionListener;
import org.wharfmq.client.core.ConnectionSettings;
import org.wharfmq.client.core.CoreConnection;
import org.wharfmq.client.core.CoreConsumer;
import org.wharfmq.client.core.CoreSender;
import org.wharfmq.client.core.CoreSession;
import org.wharfmq.client.core.CoreSettlement;
import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.security.AuditLog;

import java.lang.invoke.MethodHandles;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Serves the admin command queue, IBM MQ style: requests arrive on {@value SystemQueues#ADMIN_COMMAND_QUEUE} (over the
 * in-VM listener, through the core client, without JMS), each answered on its JMSReplyTo with JSON
 * ({@link AdminProtocol}). A
 * {@link ServerPlugin}: start it after the plugins whose commands it serves
 * ({@code WharfServer.start(config, flowHost, new AdminPlugin(flowHost.adminCommands()))}), so the queue opens once
 * everything it answers for runs.
 *
 * <p>Commands: the management view's ({@link ManagementCommands}: queues, connections, subscriptions, the server),
 * {@code topics} (the text {@code wharf topic list} prints), and those other plugins give it ({@link AdminCommands}).
 * Both admin queues are created if missing, whatever autoCreate says, and kept.
 *
 * <p>Who may send a command: the {@code SYSTEM.*} queues need the admin permission (docs/security.md), and the
 * plugin asks again itself, before it runs each command, whether the sender the queue manager stamped on the request
 * may administer ({@link SenderCheck}): a request some deputy put there with the queue manager's authority is
 * refused. The plugin itself connects anonymously in-VM, as the queue manager, which may do everything.
 * Every command is one audit line ({@link AuditLog#adminCommand}): who (the stamped sender), what with which arguments (a password's as {@code ***}: a channel's, say), and the
 * result. Commands run one at a time, on the
 * plugin's session's dispatch thread ({@code wharf-session-...}).
 */
public final class AdminPlugin implements ServerPlugin {

    private static final System.Logger LOG = System.getLogger(AdminPlugin.class.getName());
    /** Room left in a message for its headers and properties besides the JSON body. */
    private static final int ANSWER_HEADROOM_BYTES = 4096;
    /** Window of the command queue's consumer: commands run one at a time, so a few ahead are plenty. */
    private static final int PREFETCH = 10;
    /** The source {@code display settings} names for a queue manager a program embeds and configures in its code. */
    public static final String EMBEDDED = "the program that embeds the queue manager (its ServerConfig)";

    /** The client name the plugin's connection gives in its HELLO, as the connections' listing shows it. */
    private static final String CLIENT_NAME = "wharf-admin-plugin";

    private final List<AdminCommands> contributors;
    /** The settings in force of the components beside the queue manager (the plugins'), by their path in the file. */
    private final Supplier<Map<String, Object>> componentSettings;
    /** Where the settings came from, as {@code display settings} heads them: a file's path, the built-in defaults. */
    private final String settingsSource;
    /** What the components beside the queue manager add to {@code display server}'s answer, by key. */
    private final Supplier<Map<String, Object>> componentStatus;
    private final ObjectMapper json = new ObjectMapper();
    private final Map<String, AdminCommand> commands = new LinkedHashMap<>();
    /** The contributors' commands, gathered by {@link #prepare}; null before. */
    private Map<String, AdminCommand> contributed;
    /** The longest answer that fits in a message (maxMessageLength, less room for the headers). */
    private int maxAnswerBytes;
    /** Whether a request's sender may administer: made by {@link #start}. */
    private SenderCheck senders;
    private CoreConnection connection;
    private CoreSession session;
    /** The producer the answers go through, to each request's JMSReplyTo. */
    private int replier;

    /**
     * An admin plugin that also serves {@code contributors}' commands, showing the queue manager's settings alone, as
     * {@value #EMBEDDED}.
     */
    public AdminPlugin(AdminCommands... contributors) {
        this(EMBEDDED, Map::of, contributors);
    }

    /**
     * An admin plugin that also serves {@code contributors}' commands.
     *
     * @param settingsSource    where the settings came from: the configuration file's path, or the built-in
     *                          defaults, with the command line's overrides; {@code display settings} says so
     * @param componentSettings the settings in force of the other components (the plugins'), by their path in the
     *                          file ({@code http.port}), passwords redacted: {@code display settings} shows them after
     *                          the queue manager's
     */
    public AdminPlugin(String settingsSource, Supplier<Map<String, Object>> componentSettings,
                       AdminCommands... contributors) {
        this(settingsSource, componentSettings, Map::of, contributors);
    }

    /**
     * An admin plugin that also serves {@code contributors}' commands, and shows in {@code display server} what the
     * other components say of themselves.
     *
     * @param settingsSource    as {@link #AdminPlugin(String, Supplier, AdminCommands...)}
     * @param componentSettings as {@link #AdminPlugin(String, Supplier, AdminCommands...)}
     * @param componentStatus   what the other components add to {@code display server}'s answer, by key (the HTTP
     *                          listener's {@code http}), asked each time it runs
     */
    public AdminPlugin(String settingsSource, Supplier<Map<String, Object>> componentSettings,
                       Supplier<Map<String, Object>> componentStatus, AdminCommands... contributors) {
        this.settingsSource = settingsSource;
        this.componentSettings = componentSettings;
        this.componentStatus = componentStatus;
        this.contributors = List.of(contributors);
    }

    /**
     * Does ahead what needs no running queue manager: the contributors' commands gathered (two of the same name
     * refused here), the JSON answers' serialisers and the in-VM connection's classes loaded. A replicated queue
     * manager's member does it while it follows as a replica, so that its takeover does not wait for it;
     * {@link #start} does it when nobody did.
     *
     * @throws IllegalStateException when two contributors name the same command
     */
    public void prepare() {
        if (contributed != null) {
            return;
        }
        Map<String, AdminCommand> gathered = new LinkedHashMap<>();
        for (AdminCommands contributor : contributors) {
            contributor.commands().forEach((name, command) -> {
                if (gathered.putIfAbsent(name, command) != null) {
                    throw new IllegalStateException("Admin command '" + name + "' of " + contributor + " is taken by "
                            + "another: give it another name.");
                }
            });
        }
        try {
            answer("prepare", json.valueToTree(Map.of("queues", List.of(Map.of("name", "Q", "depth", 0L)))));
            failed("prepare", new AdminException(AdminProtocol.REFUSED, "prepared"));
            for (Class<?> type : List.of(CoreConnection.class, CoreSession.class, CoreConsumer.class,
                    CoreSender.class, ConnectionSettings.class, BrokerAddress.class, WireMessage.class)) {
                MethodHandles.lookup().ensureInitialized(type);
            }
        } catch (JsonProcessingException | IllegalAccessException e) {
            throw new IllegalStateException("The admin plugin cannot prepare its answers: " + e, e);
        }
        contributed = gathered;
    }

    /**
     * Opens the admin command queue and serves it.
     *
     * @throws IllegalStateException when two contributors name the same command, or one names the queue manager's
     *                               own, or this plugin has started before
     * @throws ClientException       when the in-VM connection cannot be opened
     */
    @Override
    public void start(Host server) throws ClientException {
        if (connection != null) {
            throw new IllegalStateException("This AdminPlugin has started already: give each server one of its own.");
        }
        prepare();
        commands.putAll(new ManagementCommands(server.management(), componentStatus).commands());
        commands.put("topics", request -> server.topicReport());
        commands.put("display-settings", request -> {
            Map<String, Object> settings = new LinkedHashMap<>(server.config().byKey());
            settings.putAll(componentSettings.get());
            Map<String, Object> answer = new LinkedHashMap<>();
            answer.put("source", settingsSource);
            answer.put("settings", settings);
            return answer;
        });
        contributed.forEach((name, command) -> {
            if (commands.putIfAbsent(name, command) != null) {
                throw new IllegalStateException("Admin command '" + name + "' of a plugin is the queue manager's own: "
                        + "give it another name.");
            }
        });
        maxAnswerBytes = server.config().maxMessageLength() - ANSWER_HEADROOM_BYTES;
        senders = new SenderCheck(server.accessControl());
        server.management().systemQueue(SystemQueues.ADMIN_COMMAND_QUEUE);
        server.management().systemQueue(SystemQueues.ADMIN_REPLY_QUEUE);
        connection = CoreConnection.connect(ConnectionSettings.of(BrokerAddress.vm(URI.create(server.vmUrl())
                .getAuthority()), null, null, CLIENT_NAME), ConnectionListener.NONE);
        session = new CoreSession(connection, CoreSettlement.AUTO_ACKNOWLEDGE, PREFETCH, false, CoreSession.Hooks.NONE);
        session.open();
        replier = connection.nextProducerId();
        session.createProducer(replier, null);
        CoreConsumer requests = session.createConsumer(new CoreConsumer.Spec(session.id(),
                WireDestination.queue(SystemQueues.ADMIN_COMMAND_QUEUE), null, PREFETCH, 0, null));
        requests.handleWith(CoreConsumer.WIRE_MESSAGE, this::serve);
        connection.start();
    }

    private void serve(WireMessage message) {
        AdminRequest request = AdminRequest.of(message);
        Exception failure = null;
        String answer;
        try {
            senders.check(request.command(), message);
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
        if (failure != null && AdminProtocol.NOT_AUTHORISED.equals(reason(failure)) && !answerable(message.replyTo)) {
            // the queue manager's put, for a sender not known to administer: not to a queue of its choosing
            audit(request, text(failure) + " Not answered: its JMSReplyTo names " + message.replyTo + ", and the "
                    + "refusal of a sender not known to administer goes to a temporary queue or "
                    + SystemQueues.ADMIN_REPLY_QUEUE + " only.");
            return;
        }
        audit(request, failure == null ? null : text(failure));
        reply(message, answer, failure == null ? null : reason(failure));
    }

    /**
     * Whether the refusal of a sender that may not administer may be sent to {@code replyTo}: the plugin puts with
     * the queue manager's authority, so only to a temporary queue (its requester's) or the admin reply queue, never
     * to a queue the refused sender chose (another user's, one of the queue manager's own).
     */
    private static boolean answerable(WireDestination replyTo) {
        return replyTo == null || replyTo.kind().isTemporary()
                || replyTo.kind().isQueue() && SystemQueues.ADMIN_REPLY_QUEUE.equals(replyTo.name());
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
        if (failure instanceof AdminException admin) {
            admin.fields().forEach(answer::put);
        }
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

    /**
     * Sends the answer to the request's JMSReplyTo, if it has one: a TextMessage as persistent as the request (as IBM
     * MQ's command server answers; {@code wharf admin}'s are not, so that a replicated queue manager's active member
     * answers them while its replicas do not) correlated by the request's JMSMessageID; {@code reason} is null after a
     * success.
     */
    private void reply(WireMessage request, String answer, String reason) {
        if (request.replyTo == null) {
            return;
        }
        WireMessage reply = new WireMessage();
        reply.bodyType = BodyType.TEXT;
        reply.body = answer.getBytes(StandardCharsets.UTF_8);
        reply.properties.put(AdminProtocol.OK, reason == null);
        if (reason != null) {
            reply.properties.put(AdminProtocol.ERROR, reason);
        }
        reply.correlationId = request.messageId;
        reply.persistent = request.persistent;
        try {
            session.sender().send(replier, request.replyTo, reply, CoreSender.WIRE_MESSAGE, request.persistent, null);
        } catch (ClientException e) {
            LOG.log(System.Logger.Level.WARNING, "Cannot answer an admin command: " + e);
        }
    }

    /**
     * One audit line per command: who (the sender the queue manager stamped on the request, or the console's caller),
     * what with which arguments, and the result. The broker's audit line for the same message says where it
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
            connection.close();
        }
    }
}
