package org.wharfmq.server.cli;

import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.replication.ReplicationMember;
import org.wharfmq.server.replication.ReplicationSettings;
import org.wharfmq.server.security.file.SecurityFileRealm;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.BindException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code wharf server}: loads the configuration (the file given, else the built-in defaults), applies the command
 * line overrides, reads the security file it names (watched for changes; none: local anonymous clients only), starts
 * the queue manager with its flow host (the configured flows), its admin plugin (the admin command queue), the web
 * console and the HTTP listener (when the configuration has an {@code http:} block) and
 * stays in the foreground until Ctrl-C or SIGTERM, when it shuts down in order. As a standby ({@code --standby}) it
 * first waits for the queue manager that holds its data directory to stop or die. As a member of a replicated queue
 * manager (a {@code replication:} block; {@code --replica ID} says which member) it first follows as a replica,
 * applying the active instance's journal to its own, and opens its listeners only once elected active; when it stops
 * being active (cut off, paused past the election timeout, a switchover) it closes them and follows as a replica again,
 * in the same process ({@link MemberRun}). Prints a line containing {@code ready} on stdout once clients can connect
 * (a member: each time it becomes active), so scripts can wait for it; logs go to stderr.
 */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = "Runs a queue manager in the foreground until Ctrl-C or SIGTERM.")
final class ServerCommand implements Callable<Integer> {

    /** Exit status for a configuration that cannot be used. */
    static final int BAD_CONFIGURATION = 2;
    /** Exit status for a listener that cannot be opened (port in use). */
    static final int CANNOT_LISTEN = 1;
    /**
     * Exit status of a replicated queue manager's member whose log stopped while it was a replica (an entry it could
     * not apply, named on stderr; its removal from the group): started again, it applies its log from its latest
     * snapshot. A member that stops being active does not end: it rejoins as a replica in its process.
     */
    static final int LOG_STOPPED = 4;

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
        String member = null;
        try {
            file = configFile == null ? ConfigurationFile.defaults() : ConfigurationFile.load(configFile);
            file.warnings().forEach(warning -> System.err.println("wharf: warning: " + warning));
            List<String> overrides = new ArrayList<>();
            if (replica != null) {
                file = file.withReplica(replica);
                overrides.add("--replica");
            }
            ServerConfig.Builder settings = file.server().toBuilder();
            if (port != null) {
                settings.port(port);
                overrides.add("--port");
            }
            if (dataDirectory != null) {
                settings.dataDirectory(dataDirectory);
                overrides.add("--data");
            }
            if (standby) {
                settings.standby(true);
                overrides.add("--standby");
            }
            file = file.overriddenBy(overrides);
            if (file.replication() != null) {
                member = memberId(file.replication());
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
        if (member != null) {
            // a member of a replicated queue manager: replica, active, replica again, until the process is stopped
            ConfigurationFile loaded = file;
            return new MemberRun(loaded, config, users, member, replica -> new QueueManagerStart(loaded, config,
                    users, replica), configName()).run();
        }
        WharfServer server;
        QueueManagerStart start;
        try {
            start = new QueueManagerStart(file, config, users, null);
            server = start.start();
        } catch (BindException | IllegalStateException | ConfigurationException | IllegalArgumentException e) {
            System.err.println("wharf: " + e.getMessage());
            if (users != null) {
                users.close();
            }
            return refusedStartStatus(e);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            if (users != null) {
                users.close();
            }
            System.out.println("Wharf queue manager " + config.name() + " stopped");
            System.out.flush();
            stopped.countDown();
        }, "wharf-shutdown"));
        printReady(config, server, configName(), start.http());
        stopped.await();
        return 0;
    }

    /**
     * The exit status of a start refused with {@code e}: {@link #CANNOT_LISTEN} for a listener that cannot be opened
     * (BindException; IllegalStateException: the in-VM name or an HTTP path taken), else {@link #BAD_CONFIGURATION}
     * (ConfigurationException: a file a setting names cannot be used, the TLS keys; IllegalArgumentException: a flow
     * of flows: refused as it is deployed, its jar or class missing, a directory outside flowHost.fileDirectories, a
     * data source or JMS provider not defined). Each message names what was refused and the fix.
     */
    static int refusedStartStatus(Exception e) {
        return e instanceof BindException || e instanceof IllegalStateException ? CANNOT_LISTEN : BAD_CONFIGURATION;
    }

    /**
     * The one line containing {@code ready} that scripts wait for, printed each time the queue manager starts: its
     * listeners, the HTTP listener's too when it has one, and then, indented, what the HTTP listener serves and where
     * ({@link HttpGuide}).
     */
    static void printReady(ServerConfig config, WharfServer server, String configName, HttpPlugin http) {
        List<String> urls = new ArrayList<>(server.networkUrls());
        urls.add(server.vmUrl());
        if (http.url() != null) {
            urls.add(http.url());
        }
        String last = urls.remove(urls.size() - 1);
        System.out.println("Wharf queue manager " + config.name() + " ready on " + String.join(", ", urls) + " and "
                + last + " (config " + configName + ")");
        HttpGuide.lines(http).forEach(line -> System.out.println("  " + line));
        System.out.flush();
    }

    private String configName() {
        return configFile == null ? "built-in defaults" : configFile.toString();
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

    static void closeQuietly(ReplicationMember member) {
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
