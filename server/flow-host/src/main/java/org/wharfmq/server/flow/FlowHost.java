package org.wharfmq.server.flow;

import io.netty.util.concurrent.FastThreadLocalThread;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.FlowProperties;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.node.FileInputNode;
import org.wharfmq.flow.node.JmsInputNode;
import org.wharfmq.flow.node.JmsOutputNode;
import org.wharfmq.flow.node.SqlNode;
import org.wharfmq.flow.runtime.FlowHosting;
import org.wharfmq.flow.runtime.FlowJar;
import org.wharfmq.flow.runtime.HttpEndpoints;
import org.wharfmq.flow.runtime.JmsProvider;
import org.wharfmq.flow.runtime.RunningFlow;
import org.wharfmq.flow.runtime.XaCoordination;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.jms.WharfMessageConsumer;
import org.wharfmq.jms.WharfXAConnectionFactory;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.admin.AdminCommands;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.management.Management;

import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.sql.DataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The flows running in a server: deploys flow jars, each in a class loader of its own, and runs them over the
 * server's in-VM transport with as many instances as asked, giving their Database nodes the data sources of its
 * settings ({@link DataSourcePools}: opened at start, closed after the flows have stopped) and their JMSInput and
 * JMSOutput nodes the other JMS providers of its settings ({@link JmsProviders}). A {@link ServerPlugin}: give one to
 * {@code WharfServer.start(config, flowHost, new AdminPlugin(flowHost.adminCommands()))}, which starts it once the
 * listeners accept connections and stops it before they close; its admin commands ({@link FlowCommands}: {@code wharf
 * flow ...}) are served by the admin plugin, on the admin command queue. A redeploy of a flow with the same name drains the
 * running one first (its in-flight invocations finish, unread messages stay on the queue) and then starts the new
 * one, so nothing is lost or processed twice. Deployments are serialised (one at a time, under this object's
 * lock); reading the list is cheap. Each flow is built with {@link FlowProperties}: a configured flow's entry's
 * {@code properties:}, none for the others, and the HTTP listener's address as configured.
 *
 * <h2>Deploying over the wire</h2>
 * A jar sent with {@code wharf flow deploy} is code the server runs, from anyone with the admin permission. It is
 * refused, before anything is written or loaded, unless the setting {@code remoteDeploy} is on; with it off,
 * deployments kept from earlier uploads are not started either (a warning names them). Flows from the configuration
 * and the Java API are not affected. Undeploy, list, stats and trace need the admin permission too (every admin
 * command does), but run no new code.
 *
 * <h2>What survives a restart</h2>
 * Flows deployed with {@code wharf flow deploy} are kept in the data directory (the jar and a
 * {@link DeploymentRecords deployment record} under {@code DATA/flows/}) and deployed again at start, before the
 * flows the configuration lists. When a configured flow has the name of a kept deployment, <b>the kept deployment
 * wins</b> and the configured one is not started (a warning says so): a flow redeployed by hand stays as it was
 * deployed, as in App Connect. {@code wharf flow undeploy NAME} forgets the deployment; the configured flow of that
 * name then starts again at the next start. Flows deployed through the Java API ({@link #deploy(Path, String, int)},
 * {@link #deploy(FlowFactory, int)}) last until the server stops.
 */
public final class FlowHost implements ServerPlugin {

    private static final System.Logger LOG = System.getLogger(FlowHost.class.getName());

    private final FlowHostSettings settings;
    private final FileDirectories fileDirectories;
    private final Map<String, JmsProvider> jmsProviders = new LinkedHashMap<>();
    private final HttpEndpoints http;
    /** The HTTP listener the flows' HTTPInput nodes serve on, or null: its address goes into their FlowProperties. */
    private final HttpPlugin listener;
    private final Map<String, DeployedFlow> flows = new LinkedHashMap<>();
    // set once by start, from the server's settings
    private ConnectionFactory connectionFactory;
    /** The server's management, which makes the FileInput nodes' checkpoint queues; set at start. */
    private Management management;
    private Path uploadDirectory;
    private DeploymentRecords records;
    private DataSourcePools dataSources;
    /** The transaction manager of coordinated flows, when a data source is XA; else null. */
    private XaTransactions transactions;
    private XaCoordination coordination;
    /**
     * What the flows get of the server, set once by start: instance threads that are Netty's, whose buffers (each
     * send's) come from a cache of the thread's own, not from the shared arenas under their locks; bodies passed to and
     * from the in-VM connections' messages uncopied; non-transactional readers' queues taken inside the queue manager,
     * and every reader's sends outside a transaction put there.
     */
    private FlowHosting hosting;
    private boolean remoteDeploy;
    private long uploads;
    /** The HTTP listener's address as configured ({@link HttpPlugin#configuredUrl}), or null; set once by start. */
    private String serverHttpUrl;

    /**
     * A flow host with the default settings: it starts no flow of its own (flows come from the Java API), its flows
     * connect anonymously in-VM, and {@code wharf flow deploy} is refused.
     */
    public FlowHost() {
        this(FlowHostSettings.defaults());
    }

    /**
     * A flow host that starts the settings' flows with the server, as their user, deploying over the wire or not. Its
     * flows cannot have HTTPInput nodes: there is no HTTP listener for them.
     */
    public FlowHost(FlowHostSettings settings) {
        this(settings, HttpEndpoints.NONE, null);
    }

    /**
     * A flow host whose flows' HTTPInput nodes serve their paths on {@code http} (docs/flows.md, "HTTP"). Start it
     * before the HTTP plugin: the paths of the flows it starts are then served once the listener listens.
     */
    public FlowHost(FlowHostSettings settings, HttpPlugin http) {
        this(settings, new FlowHttpPaths(http), http);
    }

    private FlowHost(FlowHostSettings settings, HttpEndpoints http, HttpPlugin listener) {
        this.settings = settings;
        this.fileDirectories = new FileDirectories(settings.fileDirectories());
        settings.jmsProviders().forEach(provider -> jmsProviders.put(provider.name(), provider));
        this.http = http;
        this.listener = listener;
    }

    /** The flow host's admin commands ({@code wharf flow ...}), for the admin plugin to serve. */
    public AdminCommands adminCommands() {
        return new FlowCommands(this);
    }

    /**
     * Deploys again the flows kept from {@code wharf flow deploy} (only when {@code remoteDeploy} is on), then the
     * configured flows (skipping those whose name a kept deployment has taken). The data sources
     * ({@code dataSources}) open first, so the flows find them.
     *
     * @param server the server: its in-VM URL (which flows connect to, as flowHost.user or else anonymously), its
     *               settings (data directory: uploaded jars go under {@code flows/})
     * @throws JMSException             when a flow cannot start
     * @throws IllegalArgumentException when a jar or class is wrong or a flow is invalid
     * @throws IllegalStateException    when a kept deployment cannot be read or started (the message names its
     *                                  record file), or this flow host has started before
     */
    @Override
    public void start(Host server) throws JMSException {
        ServerConfig config = server.config();
        synchronized (this) {
            if (connectionFactory != null) {
                throw new IllegalStateException("This FlowHost has started already: give each server a FlowHost "
                        + "of its own.");
            }
            WharfConnectionFactory asFlowUser = new WharfConnectionFactory(server.vmUrl());
            asFlowUser.setUserName(settings.user()); // null: anonymous in-VM, as the queue manager itself
            asFlowUser.setPassword(settings.password());
            connectionFactory = asFlowUser;
            management = server.management();
            FlowUser user = new FlowUser(server, settings.user());
            hosting = new FlowHosting(FastThreadLocalThread::new, WharfBodies.INSTANCE,
                    new InProcessInputs(server, user), new InProcessOutputs(server, user), config.maxMessageLength());
            if (http instanceof FlowHttpPaths paths) {
                paths.attach(new HttpCallers(server));
            }
            serverHttpUrl = listener == null ? null : listener.configuredUrl(config);
            startDataSources(config, server.vmUrl());
            uploadDirectory = config.dataDirectory().resolve("flows");
            records = new DeploymentRecords(uploadDirectory);
            remoteDeploy = settings.remoteDeploy();
            for (DeploymentRecords.Stored kept : records.load()) {
                if (remoteDeploy) {
                    restore(kept);
                } else {
                    // an upload kept from a server that allowed it, or from before the setting existed: code from the
                    // wire all the same
                    LOG.log(System.Logger.Level.WARNING, "Flow '" + kept.deployment().flow() + "' kept from "
                            + "'wharf flow deploy' (" + kept.file().toAbsolutePath() + ") is not started: remote "
                            + "deploy is disabled. Deploy its jar from the configuration (flows:), or set "
                            + "flowHost.remoteDeploy: true, or delete the record and its jar.");
                }
            }
            Map<String, DeployedFlow> kept = new LinkedHashMap<>(flows);
            for (FlowConfig flow : settings.flows()) {
                deployConfigured(configuredJar(flow.jar()), flow.className(), flow.instanceCount(),
                        flow.properties(), kept);
            }
        }
    }

    /**
     * Opens the data sources; when one of them or a JMS provider is XA, first the transaction manager (with the XA
     * providers' recovery), and then a recovery scan, which settles what a crash left in doubt before any flow starts.
     */
    private void startDataSources(ServerConfig config, String vmUrl) {
        if (settings.dataSources().stream().noneMatch(DataSourceConfig::xa)
                && jmsProviders.values().stream().noneMatch(JmsProvider::xa)) {
            dataSources = new DataSourcePools(settings.dataSources(), null);
            return;
        }
        WharfXAConnectionFactory xaFactory = new WharfXAConnectionFactory(vmUrl);
        xaFactory.setUserName(settings.user());
        xaFactory.setPassword(settings.password());
        transactions = XaTransactions.start(config.dataDirectory(), xaFactory, settings.recoveryPeriodSeconds());
        try {
            jmsProviders.values().stream().filter(JmsProvider::xa).forEach(transactions::recoveryOf);
            dataSources = new DataSourcePools(settings.dataSources(), transactions);
            transactions.recoverAtStart();
        } catch (RuntimeException e) {
            transactions.close();
            transactions = null;
            throw e;
        }
        coordination = new XaCoordination(transactions.transactionManager(), xaFactory,
                QueueManagerBranch.enlisting(), FlowHost::awaitMessage);
    }

    /**
     * How a coordinated reader waits for a message before it begins its transaction: on its consumer's buffer (the
     * readers' consumers are the Wharf client's, of the in-VM XA connection).
     */
    private static boolean awaitMessage(MessageConsumer consumer, long millis) throws JMSException {
        return ((WharfMessageConsumer) consumer).awaitMessage(millis);
    }

    /**
     * The data sources a flow gets: a coordinated one only the XA data sources (whose connections its transaction
     * manager commits), another all of them.
     */
    private Map<String, DataSource> dataSourcesOf(boolean coordinated) {
        if (!coordinated) {
            return dataSources.byName();
        }
        Map<String, DataSource> xa = new LinkedHashMap<>();
        dataSources.byName().forEach((name, source) -> {
            if (dataSources.isXa(name)) {
                xa.put(name, source);
            }
        });
        return xa;
    }

    /**
     * Whether a flow is coordinated: one of its Database nodes names an XA data source, or one of its JMSInput or
     * JMSOutput nodes an XA JMS provider.
     *
     * @throws IllegalArgumentException when its Database nodes name both XA and non-XA data sources, or it uses an XA
     *                                  provider and non-XA data sources
     */
    private boolean coordinated(FlowDefinition definition) {
        TreeSet<String> xa = new TreeSet<>();
        TreeSet<String> local = new TreeSet<>();
        TreeSet<String> xaProviders = new TreeSet<>();
        for (Node node : definition.nodes().values()) {
            if (node instanceof SqlNode sql) {
                (dataSources.isXa(sql.dataSource()) ? xa : local).add(sql.dataSource());
            }
            String provider = node instanceof JmsInputNode in ? in.provider()
                    : node instanceof JmsOutputNode out ? out.provider() : null;
            if (provider != null && jmsProviders.containsKey(provider) && jmsProviders.get(provider).xa()) {
                xaProviders.add(provider);
            }
        }
        if ((!xa.isEmpty() || !xaProviders.isEmpty()) && !local.isEmpty()) {
            throw new IllegalArgumentException("Flow '" + definition.name() + "' uses the XA "
                    + (xa.isEmpty() ? "JMS providers " + xaProviders : "data sources " + xa) + " and the data sources "
                    + local + ", which are not XA: a coordinated flow's database work all commits in its XA "
                    + "transaction. Set xa: true on " + local + " as well, or split the flow (docs/flows.md, "
                    + "\"Coordinated transactions\").");
        }
        return !xa.isEmpty() || !xaProviders.isEmpty();
    }

    /** The data sources a flow's Database nodes name. */
    private static Set<String> dataSourceNames(FlowDefinition definition) {
        Set<String> names = new TreeSet<>();
        for (Node node : definition.nodes().values()) {
            if (node instanceof SqlNode sql) {
                names.add(sql.dataSource());
            }
        }
        return names;
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

    /** Deploys a kept deployment again; a failure names the record, since no command can remove it before start. */
    private void restore(DeploymentRecords.Stored kept) throws JMSException {
        DeploymentRecords.Deployment d = kept.deployment();
        try {
            deploy(uploadDirectory.resolve(d.jar()), d.className(), d.instances(), kept.file(), false);
        } catch (JMSException | RuntimeException e) {
            throw new IllegalStateException("Cannot deploy again flow '" + d.flow() + "' kept from 'wharf flow deploy' ("
                    + kept.file().toAbsolutePath() + "): " + e.getMessage() + ". Fix the cause, or delete that record "
                    + "and its jar to start without the flow.", e);
        }
    }

    private void deployConfigured(Path jarPath, String className, int instances, Map<String, String> properties,
                                  Map<String, DeployedFlow> kept) throws JMSException {
        FlowJar jar = FlowJar.open(jarPath, FlowHost.class.getClassLoader());
        FlowDefinition definition = build(jar, className, properties);
        DeployedFlow deployed = kept.get(definition.name());
        if (deployed != null) {
            jar.close();
            LOG.log(System.Logger.Level.WARNING, "Flow '" + definition.name() + "' from " + jarPath + " in the "
                    + "configuration is not started: the flow of that name deployed with 'wharf flow deploy' ("
                    + deployed.jar().path() + ") is kept instead. 'wharf flow undeploy " + definition.name()
                    + "' forgets it; the configured flow then starts at the next start.");
            return;
        }
        start(definition, className, jar, instances, null);
    }

    /**
     * Deploys (or redeploys, when a flow of the same name runs) the flow built by {@code className} in {@code jar}.
     * It runs until undeployed or the server stops.
     *
     * @return the running flow
     */
    public synchronized DeployedFlow deploy(Path jar, String className, int instances) throws JMSException {
        requireStarted();
        return deploy(jar, className, instances, null, false);
    }

    /**
     * Deploys (or redeploys) a flow whose classes are on the server's own class path, as an application that embeds
     * the server (or the perf harness) brings them. It runs until undeployed or the server stops.
     *
     * @return the running flow
     */
    public synchronized DeployedFlow deploy(FlowFactory factory, int instances) throws JMSException {
        requireStarted();
        return start(factory.create(properties(Map.of())), factory.getClass().getName(), null, instances, null);
    }

    private void requireStarted() {
        if (connectionFactory == null) {
            throw new IllegalStateException("This FlowHost has not started: pass it to WharfServer.start(config, "
                    + "flowHost) before deploying flows.");
        }
    }

    /**
     * Deploys a jar sent by {@code wharf flow deploy}: written under the data directory with its deployment record,
     * so that it is deployed again at the next start.
     *
     * @throws RemoteDeployDisabledException when the setting {@code remoteDeploy} is off; nothing is written or loaded
     */
    synchronized DeployedFlow deployUpload(byte[] jarBytes, String jarName, String className, int instances)
            throws JMSException, IOException {
        if (!remoteDeploy) {
            throw new RemoteDeployDisabledException();
        }
        Files.createDirectories(uploadDirectory);
        String safeName = jarName == null ? "flow.jar" : Path.of(jarName).getFileName().toString();
        Path file;
        do {
            file = uploadDirectory.resolve(System.currentTimeMillis() + "-" + (++uploads) + "-" + safeName);
        } while (Files.exists(file));
        Files.write(file, jarBytes);
        try {
            return deploy(file, className, instances, DeploymentRecords.recordOf(file), true);
        } catch (JMSException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
    }

    /**
     * @param record      the deployment record of a flow deployed with {@code wharf flow deploy}, else null
     * @param writeRecord whether to write that record (a new upload) or it exists already (a restart)
     */
    private DeployedFlow deploy(Path jarPath, String className, int instances, Path record, boolean writeRecord)
            throws JMSException {
        FlowJar jar = FlowJar.open(jarPath, FlowHost.class.getClassLoader());
        FlowDefinition definition = build(jar, className, Map.of());
        if (writeRecord) {
            try {
                // before the running flow of that name is stopped and forgotten: a crash in between then finds both
                // records at start, and the later deployment wins
                records.write(jarPath, definition.name(), className, instances);
            } catch (IOException e) {
                jar.close();
                throw new IllegalStateException("Cannot record the deployment of flow '" + definition.name()
                        + "' in " + uploadDirectory.toAbsolutePath() + ": " + e, e);
            }
        }
        try {
            return start(definition, className, jar, instances, record);
        } catch (JMSException | RuntimeException e) {
            if (writeRecord) {
                delete(record);
            }
            throw e;
        }
    }

    private FlowDefinition build(FlowJar jar, String className, Map<String, String> properties) {
        try {
            return jar.createFlow(className, properties(properties));
        } catch (RuntimeException e) {
            jar.close();
            throw e;
        }
    }

    /** What a flow's factory is told: {@code values} and this server's HTTP listener. */
    private FlowProperties properties(Map<String, String> values) {
        return new FlowProperties(values, serverHttpUrl);
    }

    /** Stops the running flow of the same name (forgetting it), then starts this one. */
    private DeployedFlow start(FlowDefinition definition, String className, FlowJar jar, int instances, Path record)
            throws JMSException {
        try {
            fileDirectories.check(definition);
            makeCheckpointQueues(definition);
        } catch (IllegalArgumentException e) {
            if (jar != null) {
                jar.close();
            }
            throw e;
        }
        DeployedFlow previous = flows.remove(definition.name());
        if (previous != null) {
            LOG.log(System.Logger.Level.INFO, "Redeploying flow '" + definition.name() + "': draining the running one");
            stop(previous, true);
        }
        RunningFlow running;
        try {
            ClassLoader loader = jar == null ? FlowHost.class.getClassLoader() : jar.classLoader();
            boolean coordinated = coordinated(definition);
            dataSources.warm(dataSourceNames(definition), definition.name());
            running = RunningFlow.start(definition, connectionFactory, dataSourcesOf(coordinated), jmsProviders, http,
                    coordinated ? coordination : null, instances, false, loader, hosting);
        } catch (JMSException | RuntimeException e) {
            if (jar != null) {
                jar.close();
            }
            throw e;
        }
        DeployedFlow deployed = new DeployedFlow(definition.name(), className, jar, record, running);
        flows.put(definition.name(), deployed);
        LOG.log(System.Logger.Level.INFO, "Deployed flow " + deployed.describe());
        return deployed;
    }

    /**
     * Makes the checkpoint queues of the flow's FileInput nodes ({@code SYSTEM.FLOW.CHECKPOINT.FLOW.NODE}), whatever
     * autoCreate says, and keeps them: the checkpoint must outlive a redeploy and a restart.
     */
    private void makeCheckpointQueues(FlowDefinition definition) {
        for (Node node : definition.nodes().values()) {
            if (node instanceof FileInputNode file) {
                management.systemQueue(file.checkpointQueue(definition.name()));
            }
        }
    }

    /**
     * Drains and removes a flow; a flow deployed with {@code wharf flow deploy} is forgotten (its jar and record are
     * deleted), so it does not come back at the next start.
     *
     * @return false when no flow has that name
     */
    public synchronized boolean undeploy(String name) {
        DeployedFlow flow = flows.remove(name);
        if (flow == null) {
            return false;
        }
        stop(flow, true);
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

    /**
     * Drains every flow, keeping the deployment records, then closes the data sources and stops the transaction
     * manager's recovery. Idempotent.
     */
    @Override
    public synchronized void close() {
        for (DeployedFlow flow : flows.values()) {
            stop(flow, false);
        }
        flows.clear();
        if (dataSources != null) {
            dataSources.close();
        }
        if (transactions != null) {
            transactions.close();
            transactions = null;
        }
    }

    /** @param forget whether the flow goes for good: then a kept deployment's jar and record are deleted */
    private static void stop(DeployedFlow flow, boolean forget) {
        flow.running().close();
        if (flow.jar() != null) {
            flow.jar().close();
        }
        if (forget && flow.record() != null) {
            delete(flow.record()); // the record first: if the jar cannot be deleted, it is only a stray file
            delete(flow.jar().path());
        }
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "Cannot delete " + file + ": " + e);
        }
    }
}
