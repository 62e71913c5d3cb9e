package org.wharfmq.server.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.wharfmq.server.WharfVersion;
import org.wharfmq.server.http.HttpAnswer;
import org.wharfmq.server.http.HttpRoutes;
import org.wharfmq.server.management.ReplicationState;
import org.wharfmq.server.security.Permission;

import java.util.function.Supplier;

/**
 * The metrics of a replica of a replicated queue manager, which runs no queue manager until it is elected: on its
 * HTTP listener's {@value MetricsPlugin#PATH}, with the same permission as the active instance's, {@code wharf_info}
 * and this member's {@code wharf_replication_*} ({@link ReplicationMeters}), so that an operator can ask any member
 * where it stands. The active instance's {@link MetricsPlugin} takes over the path once the member takes over.
 */
public final class ReplicaMetrics implements AutoCloseable {

    private final HttpRoutes.Registration route;

    private ReplicaMetrics(HttpRoutes.Registration route) {
        this.route = route;
    }

    /** Registers the replica's {@value MetricsPlugin#PATH} on {@code routes}; closing removes it. */
    public static ReplicaMetrics register(HttpRoutes routes, String queueManager, Supplier<ReplicationState> state) {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Gauge.builder("wharf.info", () -> 1).tags("queue_manager", queueManager, "version", WharfVersion.current())
                .description("Always 1: the queue manager's name and version, as labels").register(prometheus);
        ReplicationMeters meters = new ReplicationMeters(state);
        meters.bindTo(prometheus);
        return new ReplicaMetrics(routes.get(MetricsPlugin.PATH, Permission.MONITOR, call -> {
            meters.refresh();
            return HttpAnswer.text(MetricsPlugin.PROMETHEUS_TEXT, prometheus.scrape());
        }));
    }

    @Override
    public void close() {
        route.close();
    }
}
