package org.wharfmq.server.cli;

import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.flow.runtime.FlowJar;
import org.wharfmq.flow.runtime.RunningFlow;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.flow.AdminResponder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * {@code wharf flow deploy|undeploy|list|stats|trace}: changes and inspects the flows of a running server. Each
 * command is a request on the server's command queue ({@code SYSTEM.ADMIN.COMMAND.QUEUE}) answered on
 * {@code SYSTEM.ADMIN.REPLY.QUEUE}, over an ordinary client connection ({@code --url}). {@code wharf flow run}
 * runs a flow jar standalone in its own JVM against a (remote) server instead.
 */
@Command(name = "flow", mixinStandardHelpOptions = true,
        description = "Lists, measures, deploys and undeploys the flows of a running server.",
        subcommands = CommandLine.HelpCommand.class)
final class FlowCommand implements Runnable {

    /** Exit status when the server answered that the command failed. */
    static final int COMMAND_FAILED = 1;
    /** Exit status when the server cannot be reached or does not answer. */
    static final int NO_ANSWER = 3;
    /** Long enough for a redeploy, which drains the running flow first. */
    private static final long REPLY_TIMEOUT_MILLIS = 120_000;

    @Spec
    private CommandSpec spec;

    /** The server to talk to. */
    static final class ServerOption {
        @Option(names = "--url", paramLabel = "URL", defaultValue = "tcp://localhost:7414",
                description = "Server URL (default: ${DEFAULT-VALUE}).")
        String url;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "Missing command: deploy, undeploy, list, stats, trace or run ('wharf flow --help').");
    }

    @Command(name = "deploy", mixinStandardHelpOptions = true,
            description = {"Sends a flow jar to the server, which deploys it and keeps it across restarts until "
                    + "undeployed; a flow of the same name is drained and replaced.",
                    "Refused unless the server's configuration sets remoteDeploy: true (off by default: anyone who "
                            + "reaches the port could run code in the server). Deploy from the server's "
                            + "configuration (flows: in wharf.yaml) instead."})
    int deploy(@Mixin ServerOption server,
               @Parameters(paramLabel = "JAR", description = "The flow jar.") Path jar,
               @Option(names = "--class", required = true, paramLabel = "CLASS",
                       description = "The jar's org.wharfmq.flow.FlowFactory class.") String className,
               @Option(names = "--instances", defaultValue = "1", paramLabel = "N",
                       description = "Threads per input node (default: ${DEFAULT-VALUE}).") int instances) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(jar);
        } catch (IOException e) {
            spec.commandLine().getErr().println("wharf: cannot read " + jar + ": " + e.getMessage());
            return COMMAND_FAILED;
        }
        return request(spec, server, session -> {
            BytesMessage message = session.createBytesMessage();
            message.writeBytes(bytes);
            message.setStringProperty(AdminResponder.CLASS, className);
            message.setIntProperty(AdminResponder.INSTANCES, instances);
            message.setStringProperty(AdminResponder.JAR_NAME, jar.getFileName().toString());
            return command(message, "deploy");
        }, reply -> AdminResponder.REMOTE_DEPLOY_DISABLED.equals(reply.getStringProperty(AdminResponder.ERROR))
                ? configurationAdvice(jar, className, instances) : null);
    }

    /** How to deploy the refused jar from the server's configuration, as config/wharf.yaml deploys the sample flows. */
    private static String configurationAdvice(Path jar, String className, int instances) {
        return "To deploy this flow from the server's configuration: put the jar on the server's machine, add it under "
                + "flows: in the server's wharf.yaml (as config/wharf.yaml deploys the sample flows) and restart the "
                + "server:\n"
                + "flows:\n"
                + "  - jar: " + jar.toAbsolutePath() + "\n"
                + "    class: " + className + "\n"
                + "    instances: " + instances + "\n"
                + "Or run it in a JVM of its own against the server: wharf flow run " + jar + " --class " + className
                + " --instances " + instances + " --url URL";
    }

    @Command(name = "run", mixinStandardHelpOptions = true,
            description = "Runs a flow jar in this JVM, as a standalone JMS application against the server at --url, "
                    + "until Ctrl-C.")
    int run(@Mixin ServerOption server,
            @Parameters(paramLabel = "JAR", description = "The flow jar.") Path jar,
            @Option(names = "--class", required = true, paramLabel = "CLASS",
                    description = "The jar's org.wharfmq.flow.FlowFactory class.") String className,
            @Option(names = "--instances", defaultValue = "1", paramLabel = "N",
                    description = "Threads per input node (default: ${DEFAULT-VALUE}).") int instances)
            throws InterruptedException {
        FlowJar flowJar;
        RunningFlow flow;
        try {
            flowJar = FlowJar.open(jar, FlowCommand.class.getClassLoader());
            flow = RunningFlow.start(flowJar.createFlow(className), new WharfConnectionFactory(server.url), instances,
                    false, flowJar.classLoader());
        } catch (JMSException | RuntimeException e) {
            spec.commandLine().getErr().println("wharf: " + e.getMessage());
            return COMMAND_FAILED;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            flow.close();
            flowJar.close();
            stopped.countDown();
        }, "wharf-flow-shutdown"));
        spec.commandLine().getOut().println("Flow " + flow.name() + " running against " + server.url + " with "
                + instances + " instance(s); Ctrl-C stops it");
        spec.commandLine().getOut().flush();
        stopped.await();
        return 0;
    }

    @Command(name = "undeploy", mixinStandardHelpOptions = true,
            description = "Drains and removes a flow; one deployed with 'deploy' does not come back at restart.")
    int undeploy(@Mixin ServerOption server, @Parameters(paramLabel = "FLOW") String flow) {
        return request(server, session -> named(session, "undeploy", flow));
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the deployed flows.")
    int list(@Mixin ServerOption server) {
        return request(server, session -> command(session.createTextMessage(), "list"));
    }

    @Command(name = "stats", mixinStandardHelpOptions = true,
            description = "Shows per-flow and per-node statistics; --timing switches elapsed/CPU time on or off.")
    int stats(@Mixin ServerOption server,
              @Parameters(paramLabel = "FLOW", arity = "0..1", description = "One flow (default: all).") String flow,
              @Option(names = "--timing", paramLabel = "on|off",
                      description = "Measure elapsed and CPU time per node (costs throughput).") String timing) {
        return request(server, session -> {
            Message message = named(session, "stats", flow);
            message.setStringProperty(AdminResponder.SWITCH, timing);
            return message;
        });
    }

    @Command(name = "trace", mixinStandardHelpOptions = true,
            description = "Switches a flow's Trace nodes on or off without redeploying it.")
    int trace(@Mixin ServerOption server, @Parameters(paramLabel = "FLOW") String flow,
              @Parameters(paramLabel = "on|off") String onOff) {
        return request(server, session -> {
            Message message = named(session, "trace", flow);
            message.setStringProperty(AdminResponder.SWITCH, onOff);
            return message;
        });
    }

    private static Message named(Session session, String command, String flow) throws JMSException {
        Message message = command(session.createTextMessage(), command);
        message.setStringProperty(AdminResponder.FLOW, flow);
        return message;
    }

    static Message command(Message message, String command) throws JMSException {
        message.setStringProperty(AdminResponder.COMMAND, command);
        return message;
    }

    @FunctionalInterface
    interface RequestBuilder {
        Message build(Session session) throws JMSException;
    }

    /** What to tell the user after the server's answer that a command failed, beyond that answer. */
    @FunctionalInterface
    interface FailureAdvice {
        /** @return advice to print, or null for none */
        String advise(Message failedReply) throws JMSException;
    }

    private int request(ServerOption server, RequestBuilder builder) {
        return request(spec, server, builder);
    }

    /** Sends one admin request to the server's command queue and prints its answer; returns the exit status. */
    static int request(CommandSpec spec, ServerOption server, RequestBuilder builder) {
        return request(spec, server, builder, reply -> null);
    }

    /** As {@link #request(CommandSpec, ServerOption, RequestBuilder)}, printing {@code advice} after a failure. */
    private static int request(CommandSpec spec, ServerOption server, RequestBuilder builder, FailureAdvice advice) {
        try (Connection connection = new WharfConnectionFactory(server.url).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue replies = session.createQueue(SystemQueues.ADMIN_REPLY_QUEUE);
            Message request = builder.build(session);
            request.setJMSReplyTo(replies);
            session.createProducer(session.createQueue(SystemQueues.ADMIN_COMMAND_QUEUE)).send(request);
            String selector = "JMSCorrelationID = '" + request.getJMSMessageID() + "'";
            try (MessageConsumer consumer = session.createConsumer(replies, selector)) {
                Message reply = consumer.receive(REPLY_TIMEOUT_MILLIS);
                if (reply == null) {
                    spec.commandLine().getErr().println("wharf: no answer from " + server.url + " within "
                            + REPLY_TIMEOUT_MILLIS / 1000 + " s");
                    return NO_ANSWER;
                }
                String text = ((TextMessage) reply).getText();
                if (reply.getBooleanProperty(AdminResponder.OK)) {
                    spec.commandLine().getOut().println(text);
                    spec.commandLine().getOut().flush();
                    return 0;
                }
                spec.commandLine().getErr().println("wharf: " + text);
                String more = advice.advise(reply);
                if (more != null) {
                    spec.commandLine().getErr().println(more);
                }
                spec.commandLine().getErr().flush();
                return COMMAND_FAILED;
            }
        } catch (JMSException e) {
            spec.commandLine().getErr().println("wharf: cannot talk to the server at " + server.url + ": " + e.getMessage());
            spec.commandLine().getErr().flush();
            return NO_ANSWER;
        }
    }
}
