package org.wharfmq.server.it;

import org.apache.skywalking.oap.server.library.util.prometheus.Parser;
import org.apache.skywalking.oap.server.library.util.prometheus.Parsers;
import org.apache.skywalking.oap.server.library.util.prometheus.metrics.Histogram;
import org.apache.skywalking.oap.server.library.util.prometheus.metrics.Metric;
import org.apache.skywalking.oap.server.library.util.prometheus.metrics.MetricFamily;
import org.apache.skywalking.oap.server.library.util.prometheus.metrics.MetricType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.flow.FlowHost;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.management.ConnectionTotals;
import org.wharfmq.server.metrics.MetricsPlugin;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.io.ByteArrayInputStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code /metrics} over HTTP from a real server after real JMS traffic, read with a real Prometheus text-format parser
 * (Apache SkyWalking's): per-queue depth, counters and consumers; connections, bytes, the journal's syncs and their
 * histogram; queues and flows that come and go; JVM meters; the same numbers over JMX.
 */
class MetricsTest {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static TestServer server;
    private static HttpPlugin http;
    private static FlowHost flows;

    @BeforeAll
    static void start() throws Exception {
        http = new HttpPlugin(HttpSettings.on("127.0.0.1"));
        flows = new FlowHost();
        MetricsPlugin metrics = new MetricsPlugin(http.routes(), flows, null, null);
        server = TestServer.start(c -> c.queue("ORDERS").queue("PAYMENTS"),
                config -> WharfServer.start(config, flows, metrics, http));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void theScrapeCarriesEachQueuesDepthCountersAndConsumersAndTheServersTraffic() throws Exception {
        int openBefore = server.server().management().connectionTotals().open();
        long bytesInWhileOpen;
        try (Connection connection = new WharfConnectionFactory(server.server().tcpUrl()).createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer orders = session.createProducer(session.createQueue("ORDERS"));
            orders.setDeliveryMode(DeliveryMode.PERSISTENT);
            for (int i = 0; i < 5; i++) {
                orders.send(session.createTextMessage("order " + i));
            }
            MessageConsumer payments = session.createConsumer(session.createQueue("PAYMENTS"));
            connection.start();
            MessageConsumer reader = session.createConsumer(session.createQueue("ORDERS"));
            assertNotNull(reader.receive(10_000));
            assertNotNull(reader.receive(10_000));
            reader.close(); // the acknowledgements of AUTO_ACKNOWLEDGE are sent before close returns

            Map<String, MetricFamily> scrape = scrape();
            assertEquals(3.0, value(scrape, "wharf_queue_depth", "ORDERS"));
            assertEquals(5.0, value(scrape, "wharf_queue_enqueued_total", "ORDERS"));
            assertEquals(2.0, value(scrape, "wharf_queue_dequeued_total", "ORDERS"));
            assertEquals(0.0, value(scrape, "wharf_queue_expired_total", "ORDERS"));
            assertEquals(0.0, value(scrape, "wharf_queue_dead_lettered_total", "ORDERS"), "the meter is there");
            assertEquals(0.0, value(scrape, "wharf_queue_consumers", "ORDERS"));
            assertEquals(1.0, value(scrape, "wharf_queue_producers", "ORDERS"));
            assertEquals(1.0, value(scrape, "wharf_queue_consumers", "PAYMENTS"));
            assertEquals(0.0, value(scrape, "wharf_queue_depth", "PAYMENTS"));
            assertTrue(value(scrape, "wharf_queue_memory_bytes", "ORDERS") > 3 * "order 0".length(),
                    "the three waiting messages' bytes at least");
            assertEquals(0.0, value(scrape, "wharf_queue_memory_bytes", "PAYMENTS"));
            assertEquals(0.0, value(scrape, "wharf_queue_paged_messages", "ORDERS"), "the meter is there");
            assertEquals(0.0, value(scrape, "wharf_queue_paged_bytes", "ORDERS"), "the meter is there");
            assertEquals(MetricType.COUNTER, scrape.get("wharf_queue_enqueued_total").getType());
            assertEquals(MetricType.GAUGE, scrape.get("wharf_queue_depth").getType());

            assertTrue(single(scrape, "wharf_connections") >= 1, "this test's connection");
            assertEquals(1.0, single(scrape, "wharf_info"));
            assertEquals(server.config().name(),
                    scrape.get("wharf_info").getMetrics().get(0).getLabels().get("queue_manager"));
            assertTrue(single(scrape, "wharf_sessions") >= 1);
            assertTrue(single(scrape, "wharf_network_received_bytes_total") > 5 * "order 0".length(),
                    "the five sends' bytes at least");
            assertTrue(single(scrape, "wharf_network_sent_bytes_total") > 0);
            bytesInWhileOpen = server.server().management().connectionTotals().bytesIn();
            assertTrue(single(scrape, "wharf_journal_syncs_total") >= 1, "persistent sends are synced");
            assertTrue(single(scrape, "wharf_journal_size_bytes") > 0);
            Histogram syncs = (Histogram) scrape.get("wharf_journal_sync_seconds").getMetrics().get(0);
            assertTrue(syncs.getSampleCount() >= 1, "each sync is in the latency histogram");
            assertTrue(syncs.getBuckets().size() > 5, "a histogram with buckets: " + syncs.getBuckets());
            Histogram batches = (Histogram) scrape.get("wharf_journal_batch_entries").getMetrics().get(0);
            assertEquals(syncs.getSampleCount(), batches.getSampleCount(), "one batch per sync");
            assertTrue(scrape.containsKey("jvm_memory_used_bytes"), "JVM meters");
            assertTrue(scrape.containsKey("process_cpu_usage"), "process meters");
            payments.close();
        }
        ConnectionTotals ended = awaitConnections(openBefore);
        assertTrue(ended.bytesIn() >= bytesInWhileOpen, "an ended connection's bytes stay counted: " + ended);
    }

    /** The totals once the open connections are back to {@code open} (the server has seen the close). */
    private static ConnectionTotals awaitConnections(int open) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        ConnectionTotals totals = server.server().management().connectionTotals();
        while (totals.open() != open && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            totals = server.server().management().connectionTotals();
        }
        assertEquals(open, totals.open(), "the connection did not end");
        return totals;
    }

    @Test
    void queuesThatComeAndGoGainAndLoseTheirMetersAtTheNextScrape() throws Exception {
        assertNull(value(scrape(), "wharf_queue_depth", "LATE"));
        server.server().management().defineQueue(QueueDefinition.named("LATE"));
        assertEquals(0.0, value(scrape(), "wharf_queue_depth", "LATE"));
        server.server().management().deleteQueue("LATE", false);
        assertNull(value(scrape(), "wharf_queue_depth", "LATE"), "a deleted queue's meters go");
    }

    @Test
    void aFlowAndItsNodesAreMeasuredWhileDeployed() throws Exception {
        flows.deploy(() -> FlowDefinition.builder("ROUTE")
                .node("in", InputNode.queue("ROUTE.IN"))
                .node("out", OutputNode.queue("ROUTE.OUT"))
                .wire("in", "out", "out")
                .build(), 1);
        try (Connection connection = new WharfConnectionFactory(server.server().tcpUrl()).createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer in = session.createProducer(session.createQueue("ROUTE.IN"));
            for (int i = 0; i < 3; i++) {
                in.send(session.createTextMessage("routed " + i));
            }
            MessageConsumer out = session.createConsumer(session.createQueue("ROUTE.OUT"));
            connection.start();
            for (int i = 0; i < 3; i++) {
                assertNotNull(out.receive(10_000), "routed message " + i);
            }
        }
        Map<String, MetricFamily> scrape = scrape();
        assertEquals(3.0, label(scrape, "wharf_flow_invocations_total", "flow", "ROUTE"));
        assertEquals(0.0, label(scrape, "wharf_flow_failures_total", "flow", "ROUTE"));
        assertTrue(scrape.get("wharf_flow_node_invocations_total").getMetrics().stream()
                .anyMatch(m -> m.getLabels().equals(Map.of("flow", "ROUTE", "node", "out", "kind",
                        m.getLabels().get("kind")))), scrape.get("wharf_flow_node_invocations_total").toString());
        flows.undeploy("ROUTE");
        assertNull(label(scrape(), "wharf_flow_invocations_total", "flow", "ROUTE"), "an undeployed flow's meters go");
    }

    @Test
    void theSameNumbersAreMBeansOverJmx() throws Exception {
        scrape(); // the meters of every queue exist after a scrape
        MBeanServer beans = ManagementFactory.getPlatformMBeanServer();
        Set<ObjectName> depth = beans.queryNames(new ObjectName(MetricsPlugin.JMX_DOMAIN + ":*"), null);
        ObjectName payments = depth.stream().filter(n -> n.toString().contains("wharfQueueDepth")
                && n.toString().contains("PAYMENTS")).findFirst().orElseThrow(() -> new AssertionError(depth));
        assertEquals(0.0, ((Number) beans.getAttribute(payments, "Value")).doubleValue());
    }

    /** GET /metrics, parsed: the families by name. */
    private static Map<String, MetricFamily> scrape() throws Exception {
        HttpResponse<byte[]> answer = CLIENT.send(HttpRequest.newBuilder(URI.create(http.url() + MetricsPlugin.PATH))
                .build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, answer.statusCode(), new String(answer.body(), StandardCharsets.UTF_8));
        assertTrue(answer.headers().firstValue("Content-Type").orElseThrow().startsWith("text/plain; version=0.0.4"));
        Parser parser = Parsers.text(new ByteArrayInputStream(answer.body()));
        Map<String, MetricFamily> families = new HashMap<>();
        for (MetricFamily f = parser.parse(System.currentTimeMillis()); f != null;
             f = parser.parse(System.currentTimeMillis())) {
            families.put(f.getName(), f);
        }
        assertFalse(families.isEmpty());
        return families;
    }

    /** The value of family {@code name}'s sample for {@code queue}, or null when it has none. */
    private static Double value(Map<String, MetricFamily> scrape, String name, String queue) {
        return label(scrape, name, "queue", queue);
    }

    /** The value of family {@code name}'s sample whose {@code label} is {@code value}, or null when it has none. */
    private static Double label(Map<String, MetricFamily> scrape, String name, String label, String value) {
        MetricFamily family = scrape.get(name);
        if (family == null) {
            return null;
        }
        return family.getMetrics().stream().filter(m -> value.equals(m.getLabels().get(label))).findFirst()
                .map(Metric::value).orElse(null);
    }

    /** The value of the family's one sample. */
    private static double single(Map<String, MetricFamily> scrape, String name) {
        MetricFamily family = scrape.get(name);
        assertNotNull(family, name + " in " + scrape.keySet());
        assertEquals(1, family.getMetrics().size(), family.toString());
        return family.getMetrics().get(0).value();
    }
}
