package org.wharfmq.server.channels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.console.ConsolePlugin;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.metrics.MetricsPlugin;

import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The publish/subscribe hierarchy where operators look: {@code wharf admin display pubsub} (the real admin CLI), the
 * metrics ({@code wharf_hierarchy_*} at {@code /metrics}) and the console's {@code /api/display-pubsub}, on two queue
 * managers, QM1 the parent of QM2, joined by a channel each way; and the filters of QM2's set beyond QM1's
 * {@code maxProxySubscriptions}, counted there.
 */
class PubSubHierarchyStatusTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ChannelServers servers = new ChannelServers();
    private final Map<String, Integer> ports = new ConcurrentHashMap<>();
    private final HttpPlugin http = new HttpPlugin(HttpSettings.on("127.0.0.1"));

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    private TestServer start(String name, HierarchySettings hierarchy, boolean views) throws Exception {
        return servers.keep(TestServer.start(c -> {
            c.name(name).port(ports.get(name)).autoCreate(false);
            hierarchy.partners().forEach(partner -> c.queue(QueueDefinition.transmissionQueue(partner)));
            return c;
        }, c -> {
            ChannelsPlugin channelsPlugin = new ChannelsPlugin(new ChannelSettings(
                    PubSubHierarchyTest.channels(name, hierarchy, ports)));
            PubSubHierarchy plugin = new PubSubHierarchy(hierarchy, channelsPlugin);
            AdminPlugin admin = new AdminPlugin(channelsPlugin.adminCommands(), plugin.adminCommands());
            WharfServer.Starter starter = views
                    ? WharfServer.builder(c).plugins(plugin, channelsPlugin, admin, new ConsolePlugin(http, admin),
                    new MetricsPlugin(http.routes(), null, channelsPlugin, plugin), http)
                    : WharfServer.builder(c).plugins(plugin, channelsPlugin, admin);
            return starter.start();
        }));
    }

    @Test
    void theParentShowsItsChildsProxySubscriptionsAndWhatItForwardedAndTheChildItsParent() throws Exception {
        ports.put("QM1", FreePorts.one());
        ports.put("QM2", FreePorts.one());
        TestServer qm1 = start("QM1", new HierarchySettings(null, List.of("QM2")), true);
        TestServer qm2 = start("QM2", new HierarchySettings("QM1", List.of()), false);
        String url1 = qm1.server().tcpUrl();
        String url2 = qm2.server().tcpUrl();

        Session onQm2 = servers.connect(url2).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer prices = onQm2.createConsumer(onQm2.createTopic("prices/#"));
        JsonNode child = awaitPartner(url1, p -> p.get("proxySubscriptions").asLong() == 1);
        assertEquals("QM2", child.get("queueManager").asText());
        assertEquals("child", child.get("relation").asText());
        assertEquals("ACTIVE", child.get("state").asText(), child.toString());
        assertTrue(child.get("subscriptionSetsReceived").asLong() >= 1, child.toString());
        assertTrue(child.get("reason").isNull(), child.toString());

        Session onQm1 = servers.connect(url1).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer publisher = onQm1.createProducer(onQm1.createTopic("prices/fish"));
        publisher.send(onQm1.createTextMessage("cod 4"));
        publisher.send(onQm1.createTextMessage("hake 3"));
        assertEquals("cod 4", ((TextMessage) ChannelServers.next(prices)).getText());
        assertEquals("hake 3", ((TextMessage) ChannelServers.next(prices)).getText());

        String table = AdminCli.ok(url1, "display", "pubsub");
        // the sender channel under the relation: what carries the sets and the publications to the partner
        assertTrue(table.matches("(?s).*QM2 +child +ACTIVE +1 +0 +\\d+ +2 +QM1\\.TO\\.QM2 (RUNNING|WAITING)\\s.*"),
                table);
        DocTables.assertDocsShowColumnsOf(table, "docs/distributed.md", "docs/operations.md");
        JsonNode parent = partner(url2);
        assertEquals("QM1", parent.get("queueManager").asText());
        assertEquals("parent", parent.get("relation").asText());
        assertEquals("ACTIVE", parent.get("state").asText());
        assertEquals(1, parent.get("subscriptionsSent").asLong(), "QM2 told its parent of prices/#");
        assertEquals(0, parent.get("publicationsForwarded").asLong());

        String metrics = ChannelStatusViewsTest.get(http.url() + MetricsPlugin.PATH);
        String qm2Labels = "partner=\"QM2\"";
        assertEquals(1.0, ChannelStatusViewsTest.value(metrics, "wharf_hierarchy_proxy_subscriptions", qm2Labels, "relation=\"child\""));
        assertEquals(2.0, ChannelStatusViewsTest.value(metrics, "wharf_hierarchy_publications_forwarded_total", qm2Labels));
        assertEquals(0.0, ChannelStatusViewsTest.value(metrics, "wharf_hierarchy_subscriptions_sent", qm2Labels), "QM1 has none to tell");
        assertEquals(1.0, ChannelStatusViewsTest.value(metrics, "wharf_hierarchy_state", qm2Labels, "state=\"ACTIVE\""));
        assertEquals(0.0, ChannelStatusViewsTest.value(metrics, "wharf_hierarchy_state", qm2Labels, "state=\"ERROR\""));

        JsonNode console = JSON.readTree(ChannelStatusViewsTest.get(http.url() + "/api/display-pubsub"));
        assertEquals("QM1", console.get("queueManager").asText());
        assertEquals("QM2", console.get("children").get(0).asText());
        JsonNode toQm2 = console.get("partners").get(0);
        assertEquals(2, toQm2.get("publicationsForwarded").asLong());
        assertEquals("QM2", toQm2.get("transmissionQueue").asText());
        assertEquals(1, toQm2.get("channels").size(), toQm2.toString());
        assertEquals("QM1.TO.QM2", toQm2.get("channels").get(0).get("name").asText());
        assertTrue(AdminCli.ok(url2, "display", "pubsub").contains("QM1"));

        AdminCli.ok(url1, "stop", "channel", "QM1.TO.QM2");
        String stopped = AdminCli.ok(url1, "display", "pubsub");
        assertTrue(stopped.matches("(?s).*QM2 +child +ACTIVE +1 +0 +\\d+ +2 +QM1\\.TO\\.QM2 STOPPED\\s.*"), stopped);
    }

    @Test
    void theFiltersAPartnersLimitRefusedAreCountedUntilALaterSetFits() throws Exception {
        ports.put("QM1", FreePorts.one());
        ports.put("QM2", FreePorts.one());
        TestServer qm1 = start("QM1", new HierarchySettings(null, List.of("QM2"), 1), true);
        TestServer qm2 = start("QM2", new HierarchySettings("QM1", List.of()), false);
        String url1 = qm1.server().tcpUrl();

        Session onQm2 = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer first = onQm2.createConsumer(onQm2.createTopic("a/#"));
        onQm2.createConsumer(onQm2.createTopic("b/#"));
        JsonNode child = awaitPartner(url1, p -> p.get("proxySubscriptionsRefused").asInt() == 1);
        assertEquals(1, child.get("proxySubscriptions").asLong(), child.toString());
        assertTrue(child.get("refused").asText().contains("more than the 1 a partner may have on queue manager QM1"),
                child.toString());
        String labels = "partner=\"QM2\"";
        String metrics = ChannelStatusViewsTest.get(http.url() + MetricsPlugin.PATH);
        assertEquals(1.0, ChannelStatusViewsTest.value(metrics, "wharf_hierarchy_proxy_subscriptions_refused", labels,
                "relation=\"child\""));

        first.close(); // QM2's next set has one filter: within the limit
        child = awaitPartner(url1, p -> p.get("proxySubscriptionsRefused").asInt() == 0);
        assertEquals(1, child.get("proxySubscriptions").asLong(), child.toString());
        assertTrue(child.get("refused").isNull(), child.toString());
        metrics = ChannelStatusViewsTest.get(http.url() + MetricsPlugin.PATH);
        assertEquals(0.0, ChannelStatusViewsTest.value(metrics, "wharf_hierarchy_proxy_subscriptions_refused", labels));
    }

    @Test
    void aQueueManagerInNoHierarchySaysSo() throws Exception {
        ports.put("QM1", FreePorts.one());
        TestServer qm1 = start("QM1", HierarchySettings.none(), false);
        assertEquals("Queue manager QM1 is in no publish/subscribe hierarchy (hierarchy: in config/wharf.yaml,"
                + " docs/distributed.md).\n", AdminCli.ok(qm1.server().tcpUrl(), "display", "pubsub"));
    }

    /** QM's only partner as display pubsub shows it. */
    private static JsonNode partner(String url) throws Exception {
        JsonNode partners = JSON.readTree(AdminCli.ok(url, "--json", "display", "pubsub")).get("result")
                .get("partners");
        assertEquals(1, partners.size(), partners.toString());
        return partners.get(0);
    }

    /** Asks display pubsub until the only partner is as {@code wanted} says. */
    private static JsonNode awaitPartner(String url, java.util.function.Predicate<JsonNode> wanted) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ChannelServers.EXPECTED_MS);
        JsonNode p = partner(url);
        while (!wanted.test(p) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(10_000_000);
            p = partner(url);
        }
        assertTrue(wanted.test(p), p.toString());
        return p;
    }
}
