package org.wharfmq.server.metrics;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.jmx.JmxConfig;
import io.micrometer.jmx.JmxMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.channels.ChannelsPlugin;
import org.wharfmq.server.channels.PubSubHierarchy;
import org.wharfmq.server.flow.FlowHost;
import org.wharfmq.server.http.HttpAnswer;
import org.wharfmq.server.http.HttpRoutes;
import org.wharfmq.server.security.Permission;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The queue manager's metrics, a {@link ServerPlugin}, through Micrometer: the queues ({@link QueueMeters}), the
 * connections and the journal ({@link ServerMeters}), the flows ({@link FlowMeters}), the channels to and from other
 * queue managers ({@link ChannelMeters}) and the publish/subscribe hierarchy ({@link HierarchyMeters}), the JVM and the process.
 * Served in Prometheus' text format at {@value #PATH} on the HTTP listener (permission {@code monitor}) and as MBeans
 * in the domain {@value #JMX_DOMAIN} of the platform MBean server. Start it before the
 * {@link org.wharfmq.server.http.HttpPlugin} whose routes it registers on.
 *
 * <p>Nothing is counted on the messages' way: the numbers are read at scrape time from the counters the queue
 * manager keeps anyway (its management view), once per scrape however many meters read them; the journal's two
 * histograms are recorded once per sync. The queues and flows that come and go are listed before each scrape, and
 * every {@link #REFRESH_SECONDS} seconds for JMX clients.
 */
public final class MetricsPlugin implements ServerPlugin {

    /** The path of the Prometheus text. */
    public static final String PATH = "/metrics";
    /** The JMX domain of the MBeans. */
    public static final String JMX_DOMAIN = "org.wharfmq";
    /** How often queues and flows are listed for JMX clients (scrapes list them themselves), in seconds. */
    static final long REFRESH_SECONDS = 10;
    /** The media type of Prometheus' text format, version 0.0.4 (what {@link PrometheusMeterRegistry#scrape()} writes). */
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpRoutes routes;
    private final FlowHost flows;
    private final ChannelsPlugin channels;
    private final PubSubHierarchy hierarchy;
    private CompositeMeterRegistry registry;
    private PrometheusMeterRegistry prometheus;
    private JmxMeterRegistry jmx;
    private ServerMeters server;
    private QueueMeters queues;
    private FlowMeters flowMeters;
    private ChannelMeters channelMeters;
    private HierarchyMeters hierarchyMeters;
    private JvmGcMetrics gc;
    private ScheduledExecutorService refresher;
    private HttpRoutes.Registration route;

    /**
     * @param routes the HTTP listener's routes, where {@value #PATH} goes
     * @param flows    the flow host whose flows to measure, or null for none
     * @param channels the channels to measure, or null for none
     * @param hierarchy the publish/subscribe hierarchy to measure, or null for none (started before this plugin)
     */
    public MetricsPlugin(HttpRoutes routes, FlowHost flows, ChannelsPlugin channels, PubSubHierarchy hierarchy) {
        this.routes = routes;
        this.flows = flows;
        this.channels = channels;
        this.hierarchy = hierarchy;
    }

    /**
     * Makes the registries and binds the JVM's and the process's meters, which needs no queue manager: the slow part
     * of {@link #start} (1.7 to 2.4 s of a takeover on the loaded test machine, docs/performance-log.md). A replicated
     * queue manager's member does it while it follows as a replica, so that its takeover does not wait for it;
     * {@link #start} does it when nobody did. {@link #close} undoes it, started or not.
     */
    public void prepare() {
        if (registry != null) {
            return;
        }
        prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        jmx = new JmxMeterRegistry(new JmxConfig() {
            @Override
            public String get(String key) {
                return null;
            }

            @Override
            public String domain() {
                return JMX_DOMAIN;
            }
        }, Clock.SYSTEM);
        registry = new CompositeMeterRegistry(Clock.SYSTEM);
        registry.add(prometheus);
        registry.add(jmx);
        gc = new JvmGcMetrics();
        for (MeterBinder binder : new MeterBinder[]{new JvmMemoryMetrics(), gc, new JvmThreadMetrics(),
                new ClassLoaderMetrics(), new ProcessorMetrics(), new UptimeMetrics(), new FileDescriptorMetrics()}) {
            binder.bindTo(registry);
        }
    }

    @Override
    public void start(Host host) {
        if (server != null) {
            throw new IllegalStateException("This MetricsPlugin has started already: give each server one of its own.");
        }
        prepare();
        server = new ServerMeters(host.management());
        server.bindTo(registry);
        queues = new QueueMeters(registry, host.management());
        flowMeters = flows == null ? null : new FlowMeters(registry, flows);
        channelMeters = channels == null ? null : new ChannelMeters(registry, channels);
        hierarchyMeters = hierarchy == null ? null : new HierarchyMeters(registry, hierarchy);
        refreshMeters();
        refresher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "wharf-metrics");
            t.setDaemon(true);
            return t;
        });
        refresher.scheduleWithFixedDelay(this::refreshMeters, REFRESH_SECONDS, REFRESH_SECONDS, TimeUnit.SECONDS);
        route = routes.get(PATH, Permission.MONITOR, call -> {
            server.refresh();
            refreshMeters();
            return HttpAnswer.text(PROMETHEUS_TEXT, prometheus.scrape());
        });
    }

    /** Lists the queues, flows and channels anew: meters for new ones, none for gone ones. */
    private void refreshMeters() {
        queues.refresh();
        if (flowMeters != null) {
            flowMeters.refresh();
        }
        if (channelMeters != null) {
            channelMeters.refresh();
        }
        if (hierarchyMeters != null) {
            hierarchyMeters.refresh();
        }
    }

    @Override
    public void close() {
        if (route != null) {
            route.close();
        }
        if (refresher != null) {
            refresher.shutdownNow();
        }
        if (server != null) {
            server.close();
        }
        if (gc != null) {
            gc.close();
        }
        if (registry != null) {
            registry.close();
            prometheus.close();
            jmx.close();
        }
        route = null;
        refresher = null;
        server = null;
        gc = null;
        registry = null; // closed once, whoever calls again
    }
}
