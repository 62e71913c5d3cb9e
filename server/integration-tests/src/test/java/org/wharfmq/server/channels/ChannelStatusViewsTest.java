package org.wharfmq.server.channels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.console.ConsolePlugin;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.metrics.MetricsPlugin;

import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A channel's status where operators look: the metrics ({@code wharf_channel_*} at {@code /metrics}, scraped over
 * HTTP), the web console's JSON API ({@code /api/display-chstatus}, {@code /api/stop-channel}) and its Channels tab,
 * and {@code wharf admin display chstatus}.
 */
class ChannelStatusViewsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ChannelServers servers = new ChannelServers();

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    @Test
    void theMetricsAndTheConsoleShowWhatTheChannelMovedAndItsState() throws Exception {
        TestServer qm2 = servers.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS"),
                ChannelDefinition.receiver("TO.QM2", null, "QM1"));
        HttpPlugin http = new HttpPlugin(HttpSettings.on("127.0.0.1"));
        ChannelsPlugin[] channels = new ChannelsPlugin[1];
        TestServer qm1 = servers.keep(TestServer.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)), config -> {
            channels[0] = new ChannelsPlugin(new ChannelSettings(List.of(ChannelDefinition.sender("TO.QM2",
                    qm2.server().tcpUrl(), "QM2", null, null).withTimes(50, 60_000).withBatchSize(3)
                    // one batch of three: the commit's messages may reach the queue one by one, so the batch
                    // waits for its third instead of ending when the queue is briefly empty
                    .with(ChannelConfiguration.BATCH_INTERVAL_MILLIS, 30_000L))));
            AdminPlugin admin = new AdminPlugin(channels[0].adminCommands());
            return WharfServer.builder(config).plugins(channels[0], admin, new ConsolePlugin(http, admin),
                    new MetricsPlugin(http.routes(), null, channels[0], null), http).start();
        }));
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(true, Session.SESSION_TRANSACTED);
        for (int i = 0; i < 3; i++) {
            onQm1.createProducer(onQm1.createQueue("ORDERS")).send(onQm1.createTextMessage("order " + i));
        }
        onQm1.commit(); // one batch of three
        Session onQm2 = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        for (int i = 0; i < 3; i++) {
            assertEquals("order " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ChannelServers.EXPECTED_MS);
        while (channels[0].messagesSent("TO.QM2") < 3 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000); // polls the count the channel reports
        }

        String metrics = get(http.url() + MetricsPlugin.PATH);
        assertEquals(3.0, value(metrics, "wharf_channel_messages_total", "channel=\"TO.QM2\"", "type=\"sender\""));
        assertEquals(1.0, value(metrics, "wharf_channel_batches_total", "channel=\"TO.QM2\""));
        assertTrue(value(metrics, "wharf_channel_bytes_total", "channel=\"TO.QM2\"") > 3 * "order 0".length());
        assertEquals(3.0, value(metrics, "wharf_channel_sequence", "channel=\"TO.QM2\""));
        assertEquals(0.0, value(metrics, "wharf_channel_transmission_queue_depth", "channel=\"TO.QM2\""));
        assertEquals(0.0, value(metrics, "wharf_channel_in_doubt", "channel=\"TO.QM2\""));
        assertEquals(1.0, value(metrics, "wharf_channel_state", "channel=\"TO.QM2\"", "state=\"RUNNING\""));
        assertEquals(0.0, value(metrics, "wharf_channel_state", "channel=\"TO.QM2\"", "state=\"STOPPED\""));
        assertEquals(0.0, value(metrics, "wharf_channel_stop_cause", "channel=\"TO.QM2\"", "cause=\"operator\""));
        // the nonPersistentSpeed both ends agreed (the defaults: fast), in the metrics, the console and chstatus
        assertEquals(1.0, value(metrics, "wharf_channel_non_persistent_speed", "channel=\"TO.QM2\"", "speed=\"fast\""));
        assertEquals(0.0, value(metrics, "wharf_channel_non_persistent_speed", "channel=\"TO.QM2\"",
                "speed=\"normal\""));
        String table = AdminCli.ok(qm1.server().tcpUrl(), "display", "chstatus");
        assertTrue(table.lines().map(String::strip).anyMatch(l -> l.startsWith("TO.QM2") && l.endsWith(" fast")),
                table);
        assertTrue(table.lines().findFirst().orElseThrow().strip().endsWith("NPMSPEED"), table);
        assertTrue(get(http.url() + "/console/console.js").contains("c.nonPersistentSpeed"), "the Channels tab's column");

        JsonNode console = JSON.readTree(get(http.url() + "/api/display-chstatus"));
        assertEquals("fast", console.get(0).get("nonPersistentSpeed").asText());
        assertEquals("TO.QM2", console.get(0).get("name").asText());
        assertEquals("RUNNING", console.get(0).get("state").asText());
        assertEquals(3, console.get(0).get("messages").asLong());
        assertEquals(1, console.get(0).get("batches").asLong());
        assertEquals(0, console.get(0).get("transmissionQueueDepth").asLong());
        HttpResponse<String> stopped = CLIENT.send(HttpRequest.newBuilder(URI.create(http.url() + "/api/stop-channel"))
                .header("X-Wharf-Console", "1").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"channel\": \"TO.QM2\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, stopped.statusCode(), stopped.body());
        onQm1.createProducer(onQm1.createQueue("ORDERS")).send(onQm1.createTextMessage("waits"));
        onQm1.commit();

        metrics = get(http.url() + MetricsPlugin.PATH);
        assertEquals(1.0, value(metrics, "wharf_channel_state", "channel=\"TO.QM2\"", "state=\"STOPPED\""));
        assertEquals(0.0, value(metrics, "wharf_channel_state", "channel=\"TO.QM2\"", "state=\"RUNNING\""));
        assertEquals(1.0, value(metrics, "wharf_channel_transmission_queue_depth", "channel=\"TO.QM2\""));
        assertEquals(1.0, value(metrics, "wharf_channel_stop_cause", "channel=\"TO.QM2\"", "cause=\"operator\""));
        assertEquals(0.0, value(metrics, "wharf_channel_stop_cause", "channel=\"TO.QM2\"", "cause=\"batch_refused\""));
        console = JSON.readTree(get(http.url() + "/api/display-chstatus"));
        assertEquals("STOPPED", console.get(0).get("state").asText());
        assertEquals("operator", console.get(0).get("stopCause").asText());
        assertEquals("an operator stopped it; 'wharf admin start channel TO.QM2' starts it",
                console.get(0).get("reason").asText());
        assertEquals(1, console.get(0).get("transmissionQueueDepth").asLong());
    }

    /** GETs {@code url}, which must answer 200; its body. */
    static String get(String url) throws Exception {
        HttpResponse<String> answer = CLIENT.send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode(), answer.body());
        return answer.body();
    }

    /** The value of the sample of {@code name} whose labels include every one of {@code labels}. */
    static double value(String scrape, String name, String... labels) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(name + "{") && java.util.Arrays.stream(labels).allMatch(line::contains)) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no " + name + " " + List.of(labels) + " in the scrape:\n" + scrape);
    }
}
