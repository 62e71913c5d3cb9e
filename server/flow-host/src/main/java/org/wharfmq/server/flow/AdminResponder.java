package org.wharfmq.server.flow;

import org.wharfmq.flow.runtime.FlowStatistics;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.security.AccessControl;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.io.IOException;
import java.util.List;

/**
 * Serves admin commands, IBM MQ style: requests arrive on {@value SystemQueues#ADMIN_COMMAND_QUEUE} (over the in-VM client, like
 * any application's), each with the property {@value #COMMAND} and a JMSReplyTo; the reply is a TextMessage with
 * the command's output, the property {@value #OK} and the request's message id as correlation id.
 *
 * <p>Commands: {@code deploy} (BytesMessage body = the jar; properties {@value #CLASS}, {@value #INSTANCES},
 * {@value #JAR_NAME}; refused unless the setting {@code remoteDeploy} is on, see {@link FlowHost}), {@code undeploy}, {@code list}, {@code stats} (optional {@value #FLOW}; optional
 * {@value #SWITCH} to turn timing on or off), {@code trace} ({@value #FLOW} and {@value #SWITCH}), {@code topics}
 * (the subscriptions of every topic and their backlogs, for {@code wharf topic list}).
 *
 * <p>{@code topics} is the broker's, not the flows': it is answered here because this is the one admin queue there
 * is, so a broker started without a {@link FlowHost} does not answer {@code wharf topic list}. The admin commands are
 * to move to a plugin of their own (as the HTTP listener will be), the flow host adding its commands to it.
 */
public final class AdminResponder implements AutoCloseable {

    /** Request property: the command. */
    public static final String COMMAND = "WharfCommand";
    /** Request property: the flow's name. */
    public static final String FLOW = "WharfFlow";
    /** Request property: the FlowFactory class (deploy). */
    public static final String CLASS = "WharfClass";
    /** Request property: instances per input node (deploy). */
    public static final String INSTANCES = "WharfInstances";
    /** Request property: the jar's file name (deploy). */
    public static final String JAR_NAME = "WharfJarName";
    /** Request property: on/off for trace and stats timing. */
    public static final String SWITCH = "WharfSwitch";
    /** Reply property: whether the command succeeded. */
    public static final String OK = "WharfOk";
    /** Reply property of some failures: what was refused, for a client to explain it ({@link #REMOTE_DEPLOY_DISABLED}). */
    public static final String ERROR = "WharfError";
    /** {@value #ERROR} of a deploy refused because the server's setting remoteDeploy is off. */
    public static final String REMOTE_DEPLOY_DISABLED = "REMOTE_DEPLOY_DISABLED";

    private static final System.Logger LOG = System.getLogger(AdminResponder.class.getName());
    private static final System.Logger AUDIT = System.getLogger(AccessControl.AUDIT_LOGGER);

    private final FlowHost host;
    private final java.util.function.Supplier<String> topics;
    private final Connection connection;
    private final Session session;
    private final MessageProducer replier;

    private AdminResponder(FlowHost host, java.util.function.Supplier<String> topics, Connection connection)
            throws JMSException {
        this.host = host;
        this.topics = topics;
        this.connection = connection;
        this.session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        this.replier = session.createProducer(null);
    }

    /** Opens the command queue and serves it on the session's listener thread. */
    static AdminResponder start(ConnectionFactory connectionFactory, FlowHost host,
                                java.util.function.Supplier<String> topics) throws JMSException {
        Connection connection = connectionFactory.createConnection();
        try {
            AdminResponder responder = new AdminResponder(host, topics, connection);
            responder.session.createConsumer(responder.session.createQueue(SystemQueues.ADMIN_COMMAND_QUEUE))
                    .setMessageListener(responder::serve);
            connection.start();
            return responder;
        } catch (JMSException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    private void serve(Message request) {
        String reply;
        boolean ok = true;
        String error = null;
        try {
            reply = execute(request);
        } catch (Exception e) {
            ok = false;
            reply = e.getMessage() == null ? e.toString() : e.getMessage();
            error = e instanceof RemoteDeployDisabledException ? REMOTE_DEPLOY_DISABLED : null;
            LOG.log(System.Logger.Level.WARNING, "Admin command failed: " + reply);
        }
        audit(request, ok, reply);
        try {
            if (request.getJMSReplyTo() == null) {
                return;
            }
            TextMessage answer = session.createTextMessage(reply);
            answer.setBooleanProperty(OK, ok);
            if (error != null) {
                answer.setStringProperty(ERROR, error);
            }
            answer.setJMSCorrelationID(request.getJMSMessageID());
            replier.send(request.getJMSReplyTo(), answer);
        } catch (JMSException e) {
            LOG.log(System.Logger.Level.WARNING, "Cannot answer an admin command: " + e);
        }
    }

    /**
     * One audit line per command: who (the request's JMSXUserID, which the server checked against the sender's
     * login), what, and the result. The broker's audit line for the same message says where it came from.
     */
    private static void audit(Message request, boolean ok, String reply) {
        try {
            String user = request.getStringProperty("JMSXUserID");
            String flow = request.getStringProperty(FLOW);
            String onOff = request.getStringProperty(SWITCH);
            AUDIT.log(ok ? System.Logger.Level.INFO : System.Logger.Level.WARNING, "ADMIN "
                    + (user == null || user.isEmpty() ? "anonymous client" : "user '" + user + "'") + " ran '"
                    + request.getStringProperty(COMMAND) + "'" + (flow != null ? " flow=" + flow : "")
                    + (onOff != null ? " switch=" + onOff : "") + " (request " + request.getJMSMessageID() + "): "
                    + (ok ? "OK" : "FAILED: " + reply));
        } catch (JMSException e) {
            AUDIT.log(System.Logger.Level.WARNING, "ADMIN a command whose properties cannot be read: " + e);
        }
    }

    private String execute(Message request) throws JMSException, IOException {
        String command = request.getStringProperty(COMMAND);
        String flow = request.getStringProperty(FLOW);
        switch (command == null ? "" : command) {
            case "deploy" -> {
                if (!(request instanceof BytesMessage jar)) {
                    throw new IllegalArgumentException("deploy needs the jar as a BytesMessage body.");
                }
                byte[] bytes = new byte[(int) jar.getBodyLength()];
                jar.readBytes(bytes);
                int instances = request.propertyExists(INSTANCES) ? request.getIntProperty(INSTANCES) : 1;
                DeployedFlow deployed = host.deployUpload(bytes, request.getStringProperty(JAR_NAME),
                        required(request.getStringProperty(CLASS), "the jar's FlowFactory class"), instances);
                return "Deployed " + deployed.describe();
            }
            case "undeploy" -> {
                if (!host.undeploy(required(flow, "a flow name"))) {
                    throw new IllegalArgumentException("No flow named '" + flow + "' is deployed.");
                }
                return "Undeployed " + flow;
            }
            case "list" -> {
                List<DeployedFlow> flows = host.flows();
                StringBuilder sb = new StringBuilder();
                flows.forEach(f -> sb.append(f.describe()).append('\n'));
                return flows.isEmpty() ? "No flows deployed." : sb.toString().stripTrailing();
            }
            case "stats" -> {
                String onOff = request.getStringProperty(SWITCH);
                StringBuilder sb = new StringBuilder();
                for (DeployedFlow f : flow == null ? host.flows() : List.of(deployed(flow))) {
                    FlowStatistics stats = f.running().statistics();
                    if (onOff != null) {
                        stats.timing(on(onOff));
                    }
                    sb.append(stats.render(f.name()));
                }
                return sb.length() == 0 ? "No flows deployed." : sb.toString().stripTrailing();
            }
            case "trace" -> {
                deployed(required(flow, "a flow name")).running()
                        .trace(on(required(request.getStringProperty(SWITCH), "on or off")));
                return "Trace of flow " + flow + " " + request.getStringProperty(SWITCH);
            }
            case "topics" -> {
                return topics.get();
            }
            default -> throw new IllegalArgumentException("Unknown admin command '" + command
                    + "': use deploy, undeploy, list, stats, trace or topics.");
        }
    }

    private DeployedFlow deployed(String name) {
        DeployedFlow flow = host.flow(name);
        if (flow == null) {
            throw new IllegalArgumentException("No flow named '" + name + "' is deployed.");
        }
        return flow;
    }

    private static String required(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("The command needs " + what + ".");
        }
        return value;
    }

    private static boolean on(String value) {
        return switch (value.toLowerCase(java.util.Locale.ROOT)) {
            case "on", "true", "yes" -> true;
            case "off", "false", "no" -> false;
            default -> throw new IllegalArgumentException("Expected on or off, got '" + value + "'.");
        };
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (JMSException e) {
            LOG.log(System.Logger.Level.DEBUG, "Closing the admin connection: " + e);
        }
    }
}
