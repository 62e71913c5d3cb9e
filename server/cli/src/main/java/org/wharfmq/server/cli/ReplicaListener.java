package org.wharfmq.server.cli;

import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.ChannelAcceptor;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.http.HttpAnswer;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpRoutes;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.management.Management;
import org.wharfmq.server.management.ReplicationState;
import org.wharfmq.server.metrics.ReplicaMetrics;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Logins;
import org.wharfmq.server.security.Permission;
import org.wharfmq.server.session.InProcessProducer;
import org.wharfmq.server.session.InProcessTakes;

import java.util.function.Supplier;

/**
 * A replica's own status, while it follows (docs/resilience.md, "A member's own status"): a replicated queue
 * manager's member runs no queue manager and serves no application until it is elected, but opens its HTTP listener
 * (its {@code http:} block; beside its client ports' status sessions, {@link org.wharfmq.server.transport.StatusListener})
 * for two routes, with the users and permissions of its security file as on the active
 * instance: {@code GET /api/display-server}, the admin command {@code display-server} as the console's API answers
 * it ({@link ReplicaStatusReport}), and {@code GET /metrics} ({@link ReplicaMetrics}); its {@code GET /}, the console's
 * page on the active member, says where the console is (503). Each needs the {@code monitor} permission, as there.
 * Closed before the member takes over, so the queue manager's own HTTP listener opens on the same port.
 */
final class ReplicaListener implements AutoCloseable {

    /** The route of the status, as the console's API names the admin command. */
    static final String STATUS_PATH = "/api/display-server";
    /** Where the active member's web console is, which a replica answers with where to find it. */
    static final String CONSOLE_PATH = "/";

    private final HttpPlugin http;
    private final ReplicaMetrics metrics;
    private final HttpRoutes.Registration status;
    private final HttpRoutes.Registration console;

    private ReplicaListener(HttpPlugin http, ReplicaMetrics metrics, HttpRoutes.Registration status,
                            HttpRoutes.Registration console) {
        this.http = http;
        this.metrics = metrics;
        this.status = status;
        this.console = console;
    }

    /** What the console's address answers on a replica (503): where the console is, and what this listener serves. */
    static String consoleElsewhere(ReplicaStatusReport status) {
        return "This HTTP listener is a replica's: the web console runs on the active member of the replicated queue"
                + " manager, and here once this member is elected active. " + status.activeConsole() + " Here GET "
                + STATUS_PATH + " answers with this member's own status, and /metrics.";
    }

    /**
     * Opens the listener of {@code settings} (null: none, and null is returned) for the member {@code status}
     * describes, with the logins and permissions of its client port ({@link org.wharfmq.server.transport.StatusListener}).
     */
    static ReplicaListener open(HttpSettings settings, ServerConfig config, Logins logins, AccessControl access,
                                ReplicaStatusReport status, Supplier<ReplicationState> state) throws Exception {
        if (settings == null) {
            return null;
        }
        HttpPlugin http = new HttpPlugin(settings);
        ReplicaMetrics metrics = ReplicaMetrics.register(http.routes(), config.name(), state);
        HttpRoutes.Registration route = http.routes().get(STATUS_PATH, Permission.MONITOR,
                call -> HttpAnswer.json(status.status()));
        // the console's address on a replica: where the console is, rather than "no resource at '/'"
        HttpRoutes.Registration console = http.routes().get(CONSOLE_PATH, Permission.MONITOR,
                call -> HttpAnswer.refusal(503, consoleElsewhere(status)));
        ReplicaListener listener = new ReplicaListener(http, metrics, route, console);
        try {
            http.start(new ReplicaHost(config, logins, access));
        } catch (Exception | Error e) {
            listener.close();
            throw e;
        }
        return listener;
    }

    @Override
    public void close() {
        console.close();
        status.close();
        metrics.close();
        http.close();
    }

    /** What the HTTP listener needs of a queue manager, on a member that runs none yet. */
    private record ReplicaHost(ServerConfig config, Logins logins, AccessControl accessControl)
            implements ServerPlugin.Host {

        @Override
        public String vmUrl() {
            throw notRunning();
        }

        @Override
        public String topicReport() {
            throw notRunning();
        }

        @Override
        public Management management() {
            throw notRunning();
        }

        @Override
        public org.wharfmq.server.queue.MemoryBudget memoryBudget() {
            throw notRunning();
        }

        @Override
        public void acceptChannels(ChannelAcceptor acceptor) {
            throw notRunning();
        }

        @Override
        public InProcessTakes takeMessages(Identity who, String peer) {
            throw notRunning();
        }

        @Override
        public InProcessProducer putMessages(Identity who, String peer) {
            throw notRunning();
        }

        private static IllegalStateException notRunning() {
            return new IllegalStateException("This member is a replica: it runs no queue manager until it is "
                    + "elected active.");
        }
    }
}
