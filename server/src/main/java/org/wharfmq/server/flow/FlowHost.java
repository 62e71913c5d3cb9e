package org.wharfmq.server.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.runtime.FlowJar;
import org.wharfmq.flow.runtime.RunningFlow;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.config.FlowConfig;
import org.wharfmq.server.config.ServerConfig;

import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The flows running in a server: deploys flow jars, each in a class loader of its own, and runs them over the
 * server's in-VM transport with as many instances as asked. A redeploy of a flow with the same name drains the
 * running one first (its in-flight invocations finish, unread messages stay on the queue) and then starts the new
 * one, so nothing is lost or processed twice. Deployments are serialised (one at a time); reading the list is
 * cheap.
 */
public final class FlowHost implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(FlowHost.class.getName());

    private final ConnectionFactory connectionFactory;
    private final Path uploadDirectory;
    private final Map<String, DeployedFlow> flows = new LinkedHashMap<>();
    private AdminResponder admin;
    private long uploads;

    private FlowHost(String vmUrl, Path dataDirectory) {
        this.connectionFactory = new WharfConnectionFactory(vmUrl);
        this.uploadDirectory = dataDirectory.resolve("flows");
    }

    /**
     * Deploys the flows the configuration lists and opens the admin command queue. With auto-creation off, the
     * command queue is served only when the configuration defines it (and {@value AdminResponder#REPLY_QUEUE} for
     * the command line's replies).
     *
     * @param vmUrl  the server's in-VM URL, which flows and the admin responder connect to
     * @param config the server's settings: its flows, data directory (uploaded jars go under {@code flows/})
     * @param topics what the admin command {@code topics} answers ({@code wharf topic list})
     * @throws JMSException             when a flow cannot start
     * @throws IllegalArgumentException when a jar or class is wrong or a flow is invalid
     */
    public static FlowHost start(String vmUrl, ServerConfig config, java.util.function.Supplier<String> topics)
            throws JMSException {
        FlowHost host = new FlowHost(vmUrl, config.dataDirectory());
        try {
            for (FlowConfig flow : config.flows()) {
                host.deploy(configuredJar(flow.jar()), flow.className(), flow.instanceCount());
            }
            boolean commandQueue = config.autoCreate()
                    || config.queues().stream().anyMatch(q -> AdminResponder.COMMAND_QUEUE.equals(q.name()));
            if (commandQueue) {
                host.admin = AdminResponder.start(host.connectionFactory, host, topics);
            } else {
                LOG.log(System.Logger.Level.INFO, "Auto-creation is off and " + AdminResponder.COMMAND_QUEUE
                        + " is not defined: 'wharf flow' commands are not served");
            }
        } catch (JMSException | RuntimeException e) {
            host.close();
            throw e;
        }
        return host;
    }

    /** A relative jar path is taken from the working directory, else from the Wharf folder (bin/wharf sets it). */
    private static Path configuredJar(String jar) {
        Path path = Path.of(jar);
        String home = System.getProperty("wharf.home");
        if (!path.isAbsolute() && !Files.exists(path) && home != null) {
            return Path.of(home).resolve(path);
        }
        return path;
    }

    /**
     * Deploys (or redeploys, when a flow of the same name runs) the flow built by {@code className} in {@code jar}.
     *
     * @return the running flow
     */
    public synchronized DeployedFlow deploy(Path jar, String className, int instances) throws JMSException {
        return deploy(jar, className, instances, false);
    }

    /** Deploys a jar sent by {@code wharf flow deploy}: written under the data directory first. */
    synchronized DeployedFlow deployUpload(byte[] jarBytes, String jarName, String className, int instances)
            throws JMSException, IOException {
        Files.createDirectories(uploadDirectory);
        String safeName = jarName == null ? "flow.jar" : Path.of(jarName).getFileName().toString();
        Path file = uploadDirectory.resolve(System.currentTimeMillis() + "-" + (++uploads) + "-" + safeName);
        Files.write(file, jarBytes);
        try {
            return deploy(file, className, instances, true);
        } catch (JMSException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
    }

    private DeployedFlow deploy(Path jarPath, String className, int instances, boolean uploaded) throws JMSException {
        FlowJar jar = FlowJar.open(jarPath, FlowHost.class.getClassLoader());
        FlowDefinition definition;
        try {
            definition = jar.createFlow(className);
        } catch (RuntimeException e) {
            jar.close();
            throw e;
        }
        DeployedFlow previous = flows.remove(definition.name());
        if (previous != null) {
            LOG.log(System.Logger.Level.INFO, "Redeploying flow '" + definition.name() + "': draining the running one");
            stop(previous);
        }
        RunningFlow running;
        try {
            running = RunningFlow.start(definition, connectionFactory, instances, false, jar.classLoader());
        } catch (JMSException | RuntimeException e) {
            jar.close();
            throw e;
        }
        DeployedFlow deployed = new DeployedFlow(definition.name(), className, jar, uploaded, running);
        flows.put(definition.name(), deployed);
        LOG.log(System.Logger.Level.INFO, "Deployed flow " + deployed.describe());
        return deployed;
    }

    /**
     * Drains and removes a flow.
     *
     * @return false when no flow has that name
     */
    public synchronized boolean undeploy(String name) {
        DeployedFlow flow = flows.remove(name);
        if (flow == null) {
            return false;
        }
        stop(flow);
        LOG.log(System.Logger.Level.INFO, "Undeployed flow '" + name + "'");
        return true;
    }

    /** The running flows, in deployment order. */
    public synchronized List<DeployedFlow> flows() {
        return new ArrayList<>(flows.values());
    }

    /** The running flow with this name, or null. */
    public synchronized DeployedFlow flow(String name) {
        return flows.get(name);
    }

    /** Stops the admin responder and drains every flow. Idempotent. */
    @Override
    public synchronized void close() {
        if (admin != null) {
            admin.close();
            admin = null;
        }
        for (DeployedFlow flow : flows.values()) {
            stop(flow);
        }
        flows.clear();
    }

    private static void stop(DeployedFlow flow) {
        flow.running().close();
        flow.jar().close();
        if (flow.uploaded()) {
            try {
                Files.deleteIfExists(flow.jar().path());
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "Cannot delete " + flow.jar().path() + ": " + e);
            }
        }
    }
}
