package org.wharfmq.server.cli;

import org.wharfmq.server.WharfServer;
import org.wharfmq.server.channels.ChannelsPlugin;
import org.wharfmq.server.channels.PubSubHierarchy;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.console.ConsolePlugin;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.flow.FlowHost;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.metrics.MetricsPlugin;
import org.wharfmq.server.replication.ReplicationCommands;
import org.wharfmq.server.replication.ReplicationConfiguration;
import org.wharfmq.server.replication.ReplicationMember;
import org.wharfmq.server.replication.ReplicationSettings;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Authenticator;
import org.wharfmq.server.security.Logins;
import org.wharfmq.server.security.file.SecurityFileRealm;
import org.wharfmq.server.transport.StatusListener;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.BindException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

/**
 * {@code wharf server}: loads the configuration (the file given, else the built-in defaults), applies the command
 * line overrides, reads the security file it names (watched for changes; none: local anonymous clients only), starts
 * the queue manager with its flow host (the configured flows), its admin plugin (the admin command queue), the web
 * console and the HTTP listener (when the configuration has an {@code http:} block) and
 * stays in the foreground until Ctrl-C or SIGTERM, when it shuts down in order. As a standby ({@code --standby}) it
 * first waits for the queue manager that holds its data directory to stop or die. As a member of a replicated queue
 * manager (a {@code replication:} block; {@code --replica ID} says which member) it first follows as a replica,
 * applying the active instance's journal to its own, and opens its listeners only once elected active; it ends
 * (status {@value #FENCED}) if it then loses its majority. Prints exactly one line containing {@code ready} on
 * stdout once clients can connect, so scripts can wait for it; logs go to stderr.
 */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = "Runs a queue manager in the foreground until Ctrl-C or SIGTERM.")
final class ServerCommand implements Callable<Integer> {

    /** Exit status for a configuration that cannot be used. */
    static final int BAD_CONFIGURATION = 2;
    /** Exit status for a listener that cannot be opened (port in use). */
    static final int CANNOT_LISTEN = 1;
    /** Exit status of a replicated queue manager's active instance that lost its majority: restart it as a replica. */
    static final int FENCED = 3;

    @Option(names = "--config", paramLabel = "FILE", description = "YAML configuration file (default: built-in defaults).")
    private Path configFile;

    @Option(names = "--port", paramLabel = "N", description = "TCP port; overrides the configuration (0 = any free port).")
    private Integer port;

    @Option(names = "--data", paramLabel = "DIR", description = "Data directory; overrides the configuration.")
    private Path dataDirectory;

    @Option(names = "--standby", description = "When another queue manager uses the data directory, wait as its standby "
            + "and take over when it stops or dies (setting standby: true).")
    private boolean standby;

    @Option(names = "--replica", paramLabel = "ID", description = "Which member of the replication block this "
            + "instance is (overrides replication.member); its data directory is the member's.")
    private String replica;

    @Override
    public Integer call() throws Exception {
        ConfigurationFile file;
        ServerConfig config;
        try {
            file = configFile == null ? ConfigurationFile.defaults() : ConfigurationFile.load(configFile);
            file.warnings().forEach(warning -> System.err.println("wharf: warning: " + warning));
            if (replica != null) {
                file = file.withReplica(replica);
            }
            ServerConfig.Builder settings = file.server().toBuilder();
            if (port != null) {
                settings.port(port);
            }
            if (dataDirectory != null) {
                settings.dataDirectory(dataDirectory);
            }
            if (standby) {
                settings.standby(true);
            }
            if (file.replication() != null) {
                String member = memberId(file.replication());
                if (dataDirectory == null) {
                    settings.dataDirectory(file.replication().membership().member(member).dataDirectory());
                }
            }
            config = settings.build();
            if (file.replication() != null && config.standby()) {
                throw new ConfigurationException("A member of a replicated queue manager is no shared-disk standby: "
                        + "leave standby (and --standby) out; the replication elects the active instance.");
            }
        } catch (ConfigurationException | IllegalArgumentException e) {
            System.err.println("wharf: " + e.getMessage());
            return BAD_CONFIGURATION;
        }
        SecurityFileRealm users;
        try {
            users = file.security() == null ? null : SecurityFileRealm.open(file.security().file());
        } catch (ConfigurationException e) {
            System.err.println("wharf: " + e.getMessage());
            return BAD_CONFIGURATION;
        }
        ReplicationMember member = null;
        if (file.replication() != null) {
            try {
                member = startMember(file, config, users);
                if (member == null) {
                    if (users != null) {
                        users.close();
                    }
                    return 0;
                }
            } catch (ConfigurationException | IllegalArgumentException | BindException | IllegalStateException e) {
                // BindException, IllegalStateException: the replica's client or HTTP listener cannot listen
                System.err.println("wharf: " + e.getMessage());
                if (users != null) {
                    users.close();
                }
                return e instanceof BindException || e instanceof IllegalStateException ? CANNOT_LISTEN
                        : BAD_CONFIGURATION;
            }
        }
        WharfServer server;
        try {
            HttpPlugin http = new HttpPlugin(file.http());
            FlowHost flows = new FlowHost(file.flowHost(), http);
            ChannelsPlugin channels = new ChannelsPlugin(file.channels());
            PubSubHierarchy hierarchy = new PubSubHierarchy(file.hierarchy(), channels);
            AdminPlugin admin = new AdminPlugin(file::componentSettings, flows.adminCommands(),
                    channels.adminCommands(), hierarchy.adminCommands(), new ReplicationCommands(member));
            // the hierarchy's control queue before the channels that bring to it; the channels early (they move
            // messages whatever else runs), the admin plugin after the flows (its
            // command queue opens once they run), the console after the admin plugin (it runs its commands); HTTP last
            // (it listens once every route is registered)
            WharfServer.Starter starter = WharfServer.builder(config).plugins(hierarchy,
                    channels,
                    flows, admin,
                    new ConsolePlugin(http, admin), new MetricsPlugin(http.routes(), flows, channels, hierarchy), http);
            if (users != null) {
                starter.authenticator(users).accessControl(users.accessControl());
            }
            if (member != null) {
                starter.store(member.takeOver()).replication(member::state).definitions(member.definitions());
            }
            server = starter.start();
        } catch (BindException | IllegalStateException | ConfigurationException e) {
            // ConfigurationException: a file a setting names cannot be used (the TLS keys)
            System.err.println("wharf: " + e.getMessage());
            if (users != null) {
                users.close();
            }
            closeQuietly(member);
            if (member != null && member.fenced().isDone()) {
                // it lost the leadership while it started (what failed may be a plugin's change refused for that)
                System.err.println("wharf: " + member.fenced().join());
                return FENCED;
            }
            return e instanceof ConfigurationException ? BAD_CONFIGURATION : CANNOT_LISTEN;
        }
        ReplicationMember replicated = member;
        CountDownLatch stopped = new CountDownLatch(1);
        int[] status = {0};
        if (replicated != null) {
            replicated.fenced().thenAccept(reason -> {
                // the other two elect a new active instance: this one stops taking work at once, and ends. Its clients
                // lose their connections before the failed batches' waiters hear of it (the member fails them only
                // once told, even when the fence came while the server started, before this was registered), then the
                // rest closes on a thread of its own: closing the store waits for those waiters
                server.disconnectClients();
                replicated.stoppedServing();
                System.err.println("wharf: " + reason);
                Thread closing = new Thread(() -> {
                    server.close();
                    // still a member of the log: its vote may elect the next active instance (a switchover's)
                    String next = replicated.awaitSuccessor(ReplicationConfiguration.SUCCESSOR_WAIT);
                    System.err.println("wharf: " + (next == null ? "no other member became active within "
                            + ReplicationConfiguration.SUCCESSOR_WAIT : "member " + next + " is active") + ": ending");
                    status[0] = FENCED;
                    stopped.countDown();
                }, "wharf-fenced-close");
                closing.start();
            });
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            closeQuietly(replicated);
            if (users != null) {
                users.close();
            }
            System.out.println("Wharf queue manager " + config.name() + " stopped");
            System.out.flush();
            stopped.countDown();
        }, "wharf-shutdown"));
        System.out.println("Wharf queue manager " + config.name() + " ready on " + String.join(", ", server.networkUrls()) + " and "
                + server.vmUrl() + " (config " + (configFile == null ? "built-in defaults" : configFile) + ")");
        System.out.flush();
        stopped.await();
        return status[0];
    }

    /** This instance's member: the file's replication.member, or --replica's ({@link ConfigurationFile#withReplica}). */
    private static String memberId(ReplicationSettings replication) {
        String id = replication.member();
        if (id == null) {
            throw new ConfigurationException("The replication block names the members but not which one this "
                    + "instance is: give replication.member, or --replica ID (one of "
                    + replication.membership().members().stream().map(m -> m.id()).toList() + ").");
        }
        replication.membership().member(id); // refused, naming the members, when there is none
        return id;
    }

    /**
     * Starts this instance's member and waits, as a replica, until it is elected active: only the active instance
     * serves applications, so clients' address lists find it. Meanwhile its client ports take status sessions alone
     * ({@link StatusListener}: wharf admin's read-only commands; applications are refused) and its HTTP listener, when
     * it has one, answers for the replica's own status ({@link ReplicaListener}); both close before the takeover.
     * Returns null when the process is stopped meanwhile; refused (IllegalArgumentException, naming the setting) when
     * its settings differ from those of the member elected active.
     */
    private ReplicationMember startMember(ConfigurationFile file, ServerConfig config, SecurityFileRealm users)
            throws Exception {
        ReplicationSettings replication = file.replication();
        String id = memberId(replication);
        ReplicationMember member = ReplicationMember.start(config, replication.membership(), id, replication.tls(),
                replication.timings());
        // the replica's doors, both with the users and permissions the queue manager will have: its client ports for
        // wharf admin's status sessions (applications refused, so their address lists go on), its HTTP listener
        Logins logins = new Logins(users != null ? users : Authenticator.localOnly());
        AccessControl access = users != null ? users.accessControl() : AccessControl.allowAll();
        ReplicaStatusReport report = new ReplicaStatusReport(config, member::state);
        StatusListener clients = null;
        ReplicaListener status = null;
        try {
            clients = StatusListener.open(config, logins, access, report);
            status = ReplicaListener.open(file.http(), config, logins, access, report, member::state);
        } catch (Exception | Error e) {
            if (clients != null) {
                clients.close();
            }
            closeQuietly(member);
            throw e;
        }
        Thread waiting = Thread.currentThread();
        Thread stop = new Thread(() -> {
            closeQuietly(member);
            waiting.interrupt();
        }, "wharf-replica-shutdown");
        Runtime.getRuntime().addShutdownHook(stop);
        System.out.println("Wharf queue manager " + config.name() + ": member " + id + " of replication group '"
                + replication.membership().group() + "' follows as a replica until it is elected active");
        System.out.flush();
        try {
            CompletableFuture.anyOf(member.elected(), member.refused()).get();
            if (member.refused().isDone()) {
                // its settings differ from the elected member's (members started together compare them then)
                closeQuietly(member);
                Runtime.getRuntime().removeShutdownHook(stop);
                throw new IllegalArgumentException(member.refused().join());
            }
        } catch (InterruptedException e) {
            // stopped (Ctrl-C, SIGTERM) while a replica: the hook has closed the member
            System.out.println("Wharf queue manager " + config.name() + ": member " + id + " stopped");
            System.out.flush();
            return null;
        } finally {
            clients.close(); // the queue manager's listeners open on these ports at the takeover
            if (status != null) {
                status.close(); // and its own HTTP listener on this one
            }
        }
        Runtime.getRuntime().removeShutdownHook(stop);
        return member;
    }

    private static void closeQuietly(ReplicationMember member) {
        if (member == null) {
            return;
        }
        try {
            member.close();
        } catch (Exception e) {
            System.err.println("wharf: the replication member did not stop in order: " + e);
        }
    }
}
