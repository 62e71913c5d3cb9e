package org.wharfmq.server.cli;

import org.wharfmq.flow.FlowProperties;
import org.wharfmq.flow.runtime.FlowJar;
import org.wharfmq.flow.runtime.RunningFlow;
import org.wharfmq.server.flow.FlowCommands;
import org.wharfmq.server.flow.RemoteDeployDisabledException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import javax.jms.BytesMessage;
import javax.jms.JMSException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code wharf flow deploy|undeploy|list|stats|trace}: changes and inspects the flows of a running server. Each
 * command is a request on the server's command queue ({@code SYSTEM.ADMIN.COMMAND.QUEUE}, {@link AdminClient}),
 * answered with the text this prints, over an ordinary client connection ({@code --url}). {@code wharf flow run}
 * runs a flow jar standalone in its own JVM against a (remote) server instead.
 */
@Command(name = "flow", mixinStandardHelpOptions = true,
        description = "Lists, measures, deploys and undeploys the flows of a running server.",
        subcommands = CommandLine.HelpCommand.class)
final class FlowCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "Missing command: deploy, undeploy, list, stats, trace or run ('wharf flow --help').");
    }

    @Command(name = "deploy", mixinStandardHelpOptions = true,
            description = {"Sends a flow jar to the server, which deploys it and keeps it across restarts until "
                    + "undeployed; a flow of the same name is drained and replaced.",
                    "Refused unless the server's configuration sets flowHost.remoteDeploy: true (off by default: with it on, "
                            + "everyone with the admin permission could run code in the server). Deploy from the "
                            + "server's configuration (flows: in wharf.yaml) instead."})
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
            return AdminClient.COMMAND_FAILED;
        }
        return request(spec, server, client -> {
            BytesMessage message = client.session().createBytesMessage();
            message.writeBytes(bytes);
            message.setStringProperty(FlowCommands.CLASS, className);
            message.setIntProperty(FlowCommands.INSTANCES, instances);
            message.setStringProperty(FlowCommands.JAR_NAME, jar.getFileName().toString());
            return client.send("deploy", message);
        }, reply -> RemoteDeployDisabledException.REASON.equals(reply.reason())
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
            flow = RunningFlow.start(flowJar.createFlow(className, FlowProperties.NONE), server.factory(), instances,
                    false, flowJar.classLoader());
        } catch (JMSException | RuntimeException | java.io.IOException e) {
            spec.commandLine().getErr().println("wharf: " + e.getMessage());
            return AdminClient.COMMAND_FAILED;
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
        return request(spec, server, "undeploy", Map.of(FlowCommands.FLOW, flow));
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the deployed flows.")
    int list(@Mixin ServerOption server) {
        return request(spec, server, "list", Map.of());
    }

    @Command(name = "stats", mixinStandardHelpOptions = true,
            description = "Shows per-flow and per-node statistics; --timing switches elapsed/CPU time on or off.")
    int stats(@Mixin ServerOption server,
              @Parameters(paramLabel = "FLOW", arity = "0..1", description = "One flow (default: all).") String flow,
              @Option(names = "--timing", paramLabel = "on|off",
                      description = "Measure elapsed and CPU time per node (costs throughput).") String timing) {
        Map<String, String> arguments = new HashMap<>();
        arguments.put(FlowCommands.FLOW, flow);
        arguments.put(FlowCommands.SWITCH, timing);
        return request(spec, server, "stats", arguments);
    }

    @Command(name = "trace", mixinStandardHelpOptions = true,
            description = "Switches a flow's Trace nodes on or off without redeploying it.")
    int trace(@Mixin ServerOption server, @Parameters(paramLabel = "FLOW") String flow,
              @Parameters(paramLabel = "on|off") String onOff) {
        return request(spec, server, "trace", Map.of(FlowCommands.FLOW, flow, FlowCommands.SWITCH, onOff));
    }

    /** Sends one request to the server's command queue and waits for its answer. */
    @FunctionalInterface
    interface Request {
        /** @return the answer, or null when none came in time */
        AdminClient.Reply send(AdminClient client) throws JMSException;
    }

    /** What to tell the user after the server's answer that a command failed, beyond that answer. */
    @FunctionalInterface
    interface FailureAdvice {
        /** @return advice to print, or null for none */
        String advise(AdminClient.Reply failed);
    }

    /** Sends {@code command} with {@code arguments} and prints the text it answers; returns the exit status. */
    static int request(CommandSpec spec, ServerOption server, String command, Map<String, ?> arguments) {
        return request(spec, server, client -> client.send(command, arguments), reply -> null);
    }

    /** Sends one admin request and prints the text it answers (and {@code advice} after a failure). */
    private static int request(CommandSpec spec, ServerOption server, Request request, FailureAdvice advice) {
        try (AdminClient client = AdminClient.connect(server)) {
            AdminClient.Reply reply = request.send(client);
            if (reply == null) {
                spec.commandLine().getErr().println("wharf: no answer from " + server.url + " within "
                        + AdminClient.REPLY_TIMEOUT_MILLIS / 1000 + " s");
                return AdminClient.NO_ANSWER;
            }
            if (reply.ok()) {
                spec.commandLine().getOut().println(reply.result().asText());
                spec.commandLine().getOut().flush();
                return 0;
            }
            spec.commandLine().getErr().println("wharf: " + reply.error());
            String more = advice.advise(reply);
            if (more != null) {
                spec.commandLine().getErr().println(more);
            }
            spec.commandLine().getErr().flush();
            return AdminClient.COMMAND_FAILED;
        } catch (JMSException | IllegalArgumentException | IOException e) {
            spec.commandLine().getErr().println("wharf: " + (e instanceof AdminClient.AnswerLost ? ""
                    : "cannot talk to the server at " + server.url + ": ") + e.getMessage());
            spec.commandLine().getErr().flush();
            return AdminClient.NO_ANSWER;
        }
    }
}
