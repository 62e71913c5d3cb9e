package org.wharfmq.server.cli;

import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.channels.ChannelsPlugin;
import org.wharfmq.server.channels.PubSubHierarchy;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.console.ConsolePlugin;
import org.wharfmq.server.flow.FlowHost;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.metrics.MetricsPlugin;
import org.wharfmq.server.replication.ReplicationCommands;
import org.wharfmq.server.replication.ReplicationMember;
import org.wharfmq.server.security.file.SecurityFileRealm;
import org.wharfmq.server.store.JournalOpening;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A queue manager to start with its plugins, as the configuration file names them: on its own journal, or (a
 * replicated queue manager's member elected active) on the store the member takes over. A member makes it while it
 * follows as a replica and {@link #prepare prepares} it then (the metrics' registries and JVM meters, the admin
 * plugin's commands and classes: the slowest parts of the plugins' start), so that its takeover has that much less
 * to do before its ready line.
 *
 * <p>A queue manager on its own journal begins opening it as it is made ({@link JournalOpening}, on a thread of
 * its own), and {@link #start} prepares the plugins meanwhile: the open is mostly Chronicle Queue's own start, CPU
 * that a loaded machine gives out slowly, and the two need not wait for each other.
 *
 * <p>Threads: made, prepared and started on the thread that runs the queue manager ({@code wharf server}'s, or
 * {@link MemberRun}'s loop).
 */
final class QueueManagerStart implements AutoCloseable {

    private final ServerConfig config;
    private final SecurityFileRealm users;
    private final ReplicationMember member;
    private final MetricsPlugin metrics;
    private final AdminPlugin admin;
    private final HttpPlugin http;
    private final ServerPlugin[] plugins;
    /** The queue manager's own journal, being opened since this was made; null for a member (it takes over a store). */
    private final JournalOpening journal;

    /** @param member the replicated queue manager's member that will take over, or null: the journal's own */
    QueueManagerStart(ConfigurationFile file, ServerConfig config, SecurityFileRealm users,
                      ReplicationMember member) {
        this.config = config;
        this.users = users;
        this.member = member;
        this.journal = member == null ? JournalOpening.begin(config) : null;
        try {
            http = new HttpPlugin(file.http());
            FlowHost flows = new FlowHost(file.flowHost(), http);
            ChannelsPlugin channels = new ChannelsPlugin(file.channels());
            PubSubHierarchy hierarchy = new PubSubHierarchy(file.hierarchy(), channels);
            Supplier<Map<String, Object>> httpStatus = () -> {
                Map<String, Object> status = new LinkedHashMap<>();
                status.put(HttpSettings.KEY, http.status()); // null: no http: block, display server says "off"
                return status;
            };
            admin = new AdminPlugin(file.source(), file::componentSettings, httpStatus, flows.adminCommands(),
                    channels.adminCommands(), hierarchy.adminCommands(), new ReplicationCommands(member));
            metrics = new MetricsPlugin(http.routes(), flows, channels, hierarchy);
            // the hierarchy's control queue before the channels that bring to it; the channels early (they move
            // messages whatever else runs), the admin plugin after the flows (its command queue opens once they run), the
            // console after the admin plugin (it runs its commands); HTTP last (it listens once every route is registered)
            plugins = new ServerPlugin[]{hierarchy, channels, flows, admin, new ConsolePlugin(http, admin), metrics, http};
        } catch (RuntimeException | Error e) {
            if (journal != null) {
                journal.close();
            }
            throw e;
        }
    }

    /** Its HTTP listener (listening once started, when the configuration has an {@code http:} block). */
    HttpPlugin http() {
        return http;
    }

    /**
     * Does ahead what needs no running queue manager: the metrics' registries and the JVM's meters, the admin
     * plugin's commands, JSON answers and in-VM connection's classes.
     */
    void prepare() {
        metrics.prepare();
        admin.prepare();
    }

    /**
     * Starts the queue manager (the member's takeover first, when it has one) and its plugins; what {@link #prepare}
     * made is undone if the start fails.
     */
    WharfServer start() throws Exception {
        try {
            WharfServer.Starter starter = WharfServer.builder(config).plugins(plugins);
            if (users != null) {
                starter.authenticator(users).accessControl(users.accessControl());
            }
            if (member != null) {
                starter.store(member.takeOver()).replication(member::state).definitions(member.definitions());
            } else {
                prepare(); // while the journal opens
                starter.store(journal.take());
            }
            return starter.start();
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    /** Undoes {@link #prepare}, for a queue manager not started (its member stopped, refused or failed first). */
    @Override
    public void close() {
        if (journal != null) {
            journal.close();
        }
        metrics.close();
    }
}
