package org.wharfmq.server.cli;

import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.WharfVersion;
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
import org.wharfmq.server.security.Authenticator;
import org.wharfmq.server.security.Logins;
import org.wharfmq.server.security.Permission;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A replica's own status, while it follows (docs/resilience.md, "A member's own status"): a replicated queue
 * manager's member runs no queue manager and takes no client until it is elected, but opens its HTTP listener (its
 * {@code http:} block) for two routes, with the users and permissions of its security file as on the active
 * instance: {@code GET /api/display-server}, the admin command {@code display-server} as the console's API answers
 * it (the queue manager's name, version, start, data directory, heap, and {@code replication}: this member's role,
 * term, the active member it follows, its applied and committed indexes, the members and its last contact with the
 * active one), and {@code GET /metrics} ({@link ReplicaMetrics}). Both need the {@code monitor} permission, as there.
 * Closed before the member takes over, so the queue manager's own HTTP listener opens on the same port.
 */
final class ReplicaListener implements AutoCloseable {

    /** The route of the status, as the console's API names the admin command. */
    static final String STATUS_PATH = "/api/display-server";

    private final HttpPlugin http;
    private final ReplicaMetrics metrics;
    private final HttpRoutes.Registration status;

    private ReplicaListener(HttpPlugin http, ReplicaMetrics metrics, HttpRoutes.Registration status) {
        this.http = http;
        this.metrics = metrics;
        this.status = status;
    }

    /**
     * Opens the listener of {@code settings} (null: none, and null is returned) for member {@code state}.
     *
     * @param users  who may log in (null: local anonymous clients only, as the queue manager without a security file)
     * @param access who may do what (null: everyone everything, likewise)
     */
    static ReplicaListener open(HttpSettings settings, ServerConfig config, Authenticator users, AccessControl access,
                                Supplier<ReplicationState> state) throws Exception {
        if (settings == null) {
            return null;
        }
        long startedAt = System.currentTimeMillis();
        HttpPlugin http = new HttpPlugin(settings);
        ReplicaMetrics metrics = ReplicaMetrics.register(http.routes(), config.name(), state);
        HttpRoutes.Registration status = http.routes().get(STATUS_PATH, Permission.MONITOR,
                call -> HttpAnswer.json(status(config, startedAt, state.get())));
        ReplicaListener listener = new ReplicaListener(http, metrics, status);
        try {
            http.start(new ReplicaHost(config, new Logins(users != null ? users : Authenticator.localOnly()),
                    access != null ? access : AccessControl.allowAll()));
        } catch (Exception | Error e) {
            listener.close();
            throw e;
        }
        return listener;
    }

    /**
     * What {@code display-server} answers on the active instance, less what only a running queue manager has (its
     * listeners are none, and queues, subscriptions, connections and journal are left out rather than shown as 0).
     */
    private static Map<String, Object> status(ServerConfig config, long startedAt, ReplicationState replication) {
        Runtime runtime = Runtime.getRuntime();
        long now = System.currentTimeMillis();
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("name", config.name());
        status.put("version", WharfVersion.current());
        status.put("startedAt", startedAt);
        status.put("uptimeMillis", now - startedAt);
        status.put("listeners", List.of());
        status.put("dataDirectory", config.dataDirectory().toAbsolutePath().toString());
        status.put("heapUsedBytes", runtime.totalMemory() - runtime.freeMemory());
        status.put("heapMaxBytes", runtime.maxMemory());
        status.put("replication", replication);
        return status;
    }

    @Override
    public void close() {
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
        public void acceptChannels(ChannelAcceptor acceptor) {
            throw notRunning();
        }

        private static IllegalStateException notRunning() {
            return new IllegalStateException("This member is a replica: it runs no queue manager until it is "
                    + "elected active.");
        }
    }
}
