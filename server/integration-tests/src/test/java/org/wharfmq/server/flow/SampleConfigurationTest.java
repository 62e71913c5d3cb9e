package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.cli.WharfProcess;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.Topic;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sample configuration's flows, as a user runs them: {@code bin/wharf server --config config/wharf.yaml} from the
 * Wharf folder (here a copy of its layout: config/wharf.yaml, with only its host, ports, in-VM name and the flow jar's
 * path changed, and the working directory the data directory's parent), then the commands docs/flows.md ("Sample
 * flows") gives, and for the queue and topic samples what its JMS snippets do, through the JMS client over TCP. One
 * server for the class (a child JVM and the sample jar compiled: seconds each); each test uses what no other one
 * touches.
 */
@Tag("slow")
class SampleConfigurationTest {

    private static final long STOP_SECONDS = 30;
    private static final long RECEIVE_MILLIS = FlowFixture.RECEIVE_MILLIS;
    private static final Path ROOT = Path.of(System.getProperty("wharf.root"));

    @TempDir
    static Path dir;
    private static SampleServer server;

    @BeforeAll
    static void startTheSampleConfiguration() throws Exception {
        server = SampleServer.start(dir);
    }

    @AfterAll
    static void stopIt() throws Exception {
        server.close();
    }

    /** The echo flow answers HTTP: anonymously from this machine, as the secured defaults (no security file) allow. */
    @Test
    void theSampleConfigurationAnswersHttpThroughAFlow() throws Exception {
        HttpResponse<String> hello = server.get("/flows/echo");
        assertEquals(200, hello.statusCode(), hello.body());
        assertTrue(hello.body().startsWith("Hello from flow 'echo': GET /flows/echo"), hello.body());
        assertEquals("hi", server.post("/flows/echo", "hi").body());
    }

    /**
     * The start-up output says where everything is: the ready line names the HTTP listener beside the TCP and in-VM
     * ones, and the lines under it what the listener serves, each as a URL to open from this machine.
     */
    @Test
    void theReadyLineNamesTheHttpListenerAndWhatItServes() {
        String http = "http://127.0.0.1:" + server.httpPort();
        assertTrue(server.ready().endsWith(" and " + http + " (config config/wharf.yaml)"), server.ready());
        assertEquals(List.of(
                "  web console   " + http + "/ (docs/operations.md, \"Web console\")",
                "  admin API     " + http + "/api/COMMAND, e.g. " + http + "/api/display-queues (docs/operations.md, "
                        + "\"Web console\")",
                "  metrics       " + http + "/metrics (Prometheus; docs/operations.md, \"Metrics\")"),
                server.guide().subList(0, 3));
        String flows = server.guide().get(3);
        assertTrue(flows.startsWith("  flows' paths  ") && flows.contains(http + "/flows/echo")
                && flows.endsWith(" (docs/flows.md, \"HTTP input and reply nodes\")"), flows);
    }

    /**
     * The HTTP request sample calls the echo flow over HTTP (the echo flow sees a POST to its own path) and answers
     * with the service's status and body: on the HTTP port of the configuration, not the sample's 7480, with nothing
     * in the flow changed (it takes the listener's address from its deployment).
     */
    @Test
    void theHttpRequestSampleCallsTheEchoFlowOverHttp() throws Exception {
        HttpResponse<String> echoed = server.post("/flows/echo-client", "hi");
        assertEquals(200, echoed.statusCode(), echoed.body());
        assertEquals("The echo flow answered 200: hi", echoed.body());
        HttpResponse<String> greeted = server.get("/flows/echo-client");
        assertEquals(200, greeted.statusCode(), greeted.body());
        assertTrue(greeted.body().startsWith("The echo flow answered 200: Hello from flow 'echo': POST /flows/echo by "
                + "an anonymous caller."), greeted.body());
    }

    /**
     * The database sample stores orders in the embedded H2 under the data directory (its table made by the data
     * source's URL) and answers the customer's orders; an order the database refuses is answered 400 naming the fix,
     * never the database's message (which quotes the row in the way), and leaves nothing behind; a body that is not
     * JSON is answered 400 saying so; a value with SQL in it is stored as it is.
     */
    @Test
    void theDatabaseSampleStoresOrdersInTheEmbeddedDatabaseAndAnswersTheCustomersOrders() throws Exception {
        // the order docs/flows.md's curl sends
        HttpResponse<String> first = server.post("/flows/orders",
                "{\"id\": 1, \"customer\": \"Ann\", \"total\": 12.50}");
        assertEquals(200, first.statusCode(), () -> first.body() + "The server's log:\n" + serverLog());
        assertEquals("{\"customer\":\"Ann\",\"orders\":[{\"id\":1,\"total\":12.50}]}", first.body());
        assertEquals("{\"customer\":\"Ann\",\"orders\":[{\"id\":1,\"total\":12.50},{\"id\":2,\"total\":3.00}]}",
                server.post("/flows/orders", "{\"id\": 2, \"customer\": \"Ann\", \"total\": 3}").body());

        HttpResponse<String> taken = server.post("/flows/orders", "{\"id\": 1, \"customer\": \"Bob\", \"total\": 1}");
        assertEquals(400, taken.statusCode(), taken.body());
        assertTrue(taken.body().startsWith("Order refused by the database: check its id"), taken.body());
        assertFalse(taken.body().contains("Ann") || taken.body().contains("12.50"),
                () -> "the caller does not read the row in the way (H2's message quotes it): " + taken.body());
        HttpResponse<String> noTotal = server.post("/flows/orders", "{\"id\": 3, \"customer\": \"Bob\"}");
        assertEquals(400, noTotal.statusCode(), noTotal.body());
        assertTrue(noTotal.body().startsWith("Order refused by the database"), noTotal.body());
        HttpResponse<String> notJson = server.post("/flows/orders", "id=6&customer=Bob");
        assertEquals(400, notJson.statusCode(), notJson.body());
        assertTrue(notJson.body().startsWith("The order is not JSON: send an object such as {\"id\": 1,"),
                () -> "not blamed on the database: " + notJson.body());

        String hostile = "O'Brien'); DROP TABLE orders; --";
        assertEquals("{\"customer\":\"O'Brien'); DROP TABLE orders; --\",\"orders\":[{\"id\":4,\"total\":5.00}]}",
                server.post("/flows/orders", "{\"id\": 4, \"customer\": \"" + hostile + "\", \"total\": 5}").body());
        assertEquals("{\"customer\":\"Bob\",\"orders\":[{\"id\":5,\"total\":7.00}]}",
                server.post("/flows/orders", "{\"id\": 5, \"customer\": \"Bob\", \"total\": 7}").body(),
                "the refused orders left nothing, and the table is still there");
        assertTrue(Files.exists(dir.resolve("data/h2/samples.mv.db")), "the database is under the data directory");
    }

    /**
     * The files sample: a CSV file put in data/files/in becomes a JSON file in data/files/out and moves to the archive;
     * one that is not CSV moves to the backout folder with its reason.
     */
    @Test
    void theFilesSampleTurnsCsvFilesIntoJsonFilesUnderTheDataDirectory() throws Exception {
        Path in = Files.createDirectories(dir.resolve("data/files/in"));
        deliver(in.resolve("orders.csv"), "id,customer,total\n1,Ann,12.50\n2,\"Smith, Bob\",3.00\n");
        Path out = dir.resolve("data/files/out/orders-000001.json");
        FileNodesTest.awaitFile(out);
        assertEquals("[{\"id\":\"1\",\"customer\":\"Ann\",\"total\":\"12.50\"}]\n"
                + "[{\"id\":\"2\",\"customer\":\"Smith, Bob\",\"total\":\"3.00\"}]\n", Files.readString(out));
        FileNodesTest.awaitFile(in.resolve("archive/orders.csv"));

        deliver(in.resolve("short.csv"), "id,customer,total\n3,Carl\n");
        Path reason = in.resolve("backout/short.csv.reason");
        FileNodesTest.awaitFile(reason);
        assertTrue(Files.exists(in.resolve("backout/short.csv")));
        assertTrue(Files.readString(reason).contains("Record 1 of short.csv (line 2) does not fit its format: Not "
                + "enough column values: expected 3, found 2 (column 3)"), Files.readString(reason));
        assertFalse(Files.exists(dir.resolve("data/files/out/orders-000002.json")), "no JSON from a bad file");
    }

    /**
     * The routing sample: each order to the queue of the label its Region names, through the RouteToLabel node's
     * default terminal when no label has it or it has none.
     */
    @Test
    void theRoutingSampleSendsEachOrderToTheQueueOfItsRegionsLabel() throws Exception {
        try (Connection connection = server.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer orders = session.createProducer(session.createQueue("ORDERS.IN"));
            for (String region : new String[]{"EU", "US", "ASIA", null}) {
                TextMessage order = session.createTextMessage("an order from " + region);
                if (region != null) {
                    order.setStringProperty("Region", region);
                }
                orders.send(order);
            }
            Message eu = receive(session, "ORDERS.EU");
            assertEquals("an order from EU", ((TextMessage) eu).getText());
            assertEquals("EU", eu.getStringProperty("Region"), "the message goes on as it came");
            assertEquals("an order from US", receiveText(session, "ORDERS.US"));
            // one instance takes them in order: the region no label has, then the one without a region
            assertEquals("an order from ASIA", receiveText(session, "ORDERS.OTHER"));
            assertEquals("an order from null", receiveText(session, "ORDERS.OTHER"));
        }
    }

    /**
     * The error-handling sample: a good order passes; one the Throw node refuses and one the check's exception refuses
     * are caught, traced to the server's log with their ExceptionList, and sent on with their reason, not backed out.
     */
    @Test
    void theErrorHandlingSampleCatchesRefusedOrdersTracesThemAndSendsThemAsideWithTheirReason() throws Exception {
        try (Connection connection = server.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer orders = session.createProducer(session.createQueue("ORDERS.CHECK"));
            orders.send(session.createTextMessage("{\"item\": \"tea\", \"quantity\": 2}"));
            orders.send(session.createTextMessage("{\"item\": \"tea\"}"));
            orders.send(session.createTextMessage("{\"item\": \"tea\", \"quantity\": 0}"));

            assertEquals("{\"item\": \"tea\", \"quantity\": 2}", receiveText(session, "ORDERS.CHECKED"));
            Message noQuantity = receive(session, "ORDERS.REJECTED");
            assertEquals("{\"item\": \"tea\"}", ((TextMessage) noQuantity).getText());
            assertEquals("noQuantity: An order needs a quantity", noQuantity.getStringProperty("Reason"));
            Message zero = receive(session, "ORDERS.REJECTED");
            assertEquals("check: The quantity must be a whole number from 1, was 0", zero.getStringProperty("Reason"));
            // the Trace node wrote before the rejected order was sent, so its lines are in the log now
            String log = serverLog();
            assertTrue(log.contains("Trace order-checks.trace:"), log);
            assertTrue(log.contains("ExceptionList [check (JavaCompute): java.lang.IllegalArgumentException: The "
                    + "quantity must be a whole number from 1, was 0]"), log);
            assertTrue(log.contains("Body (JSON) {\"item\": \"tea\", \"quantity\": 0}"), log);
        }
    }

    /**
     * The publish/subscribe sample: every publication on prices/SYMBOL to the history queue with its topic, and one at
     * or above the alert price (100, the sample's default) published again on alerts/SYMBOL.
     */
    @Test
    void thePublishSubscribeSampleKeepsEveryPriceAndPublishesAnAlertForThoseAtTheAlertPrice() throws Exception {
        try (Connection connection = server.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer alerts = session.createConsumer(session.createTopic("alerts/+"));
            MessageProducer prices = session.createProducer(null);
            String[][] published = {{"ACME", "120.5"}, {"XYZ", "50"}, {"ACME", "99.99"}, {"XYZ", "100"}};
            for (String[] price : published) {
                prices.send(session.createTopic("prices/" + price[0]),
                        session.createTextMessage("{\"price\": " + price[1] + "}"));
            }
            for (String[] price : published) {
                Message seen = receive(session, "PRICES.HISTORY");
                assertEquals("{\"price\": " + price[1] + "}", ((TextMessage) seen).getText());
                assertEquals("prices/" + price[0], seen.getStringProperty("Topic"));
            }
            // one instance takes the prices in order, so the alerts come in order: the second is XYZ's 100, so the
            // prices below 100 published none
            assertEquals("{\"symbol\":\"ACME\",\"price\":120.5,\"alertPrice\":100}", text(alerts.receive(RECEIVE_MILLIS)));
            Message second = alerts.receive(RECEIVE_MILLIS);
            assertEquals("{\"symbol\":\"XYZ\",\"price\":100,\"alertPrice\":100}", text(second));
            assertEquals("alerts/XYZ", ((Topic) second.getJMSDestination()).getTopicName());
        }
    }

    private static String receiveText(Session session, String queue) throws JMSException {
        return text(receive(session, queue));
    }

    private static Message receive(Session session, String queue) throws JMSException {
        try (MessageConsumer consumer = session.createConsumer(session.createQueue(queue))) {
            return consumer.receive(RECEIVE_MILLIS);
        }
    }

    private static String text(Message message) throws JMSException {
        assertNotNull(message, "a message within " + RECEIVE_MILLIS + " ms");
        return ((TextMessage) message).getText();
    }

    /** What the server wrote to its standard error (its log), for a failure's message. */
    private static String serverLog() {
        try {
            return Files.readString(dir.resolve("server.err"));
        } catch (java.io.IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** Writes {@code file} as the docs say to: under a {@code .part} name, then renamed into the directory. */
    private static void deliver(Path file, String content) throws Exception {
        Path part = Files.writeString(file.resolveSibling(file.getFileName() + ".part"), content);
        Files.move(part, file, StandardCopyOption.ATOMIC_MOVE);
    }

    /** A server of the sample configuration in a child JVM, stopped with SIGTERM. */
    private record SampleServer(Process process, int httpPort, String tcpUrl, String ready, List<String> guide,
                                HttpClient client) implements AutoCloseable {

        static SampleServer start(Path dir) throws Exception {
            int httpPort = FreePorts.one();
            Path jar = TestJars.buildFromSources(dir, "sample-flow.jar",
                    ROOT.resolve("config/flows/sample-flow/src/main/java"));
            String sample = Files.readString(ROOT.resolve("config/wharf.yaml"));
            assertTrue(sample.contains("\nhttp:\n  # Port of the HTTP listener. 0 picks any free port.\n"
                    + "  port: 7480\n"), "the sample's HTTP listener");
            Path config = Files.createDirectories(dir.resolve("config")).resolve("wharf.yaml");
            Files.writeString(config, sample.replace("\nhost: 0.0.0.0\n", "\nhost: 127.0.0.1\n")
                    .replace("inVmName: wharf\n", "inVmName: sample-" + httpPort + "\n")
                    .replace("  port: 7480\n", "  port: " + httpPort + "\n")
                    .replace("config/flows/sample-flow/target/sample-flow.jar", jar.toString()));
            Path errors = dir.resolve("server.err"); // read at a failure; a pipe nobody reads could stop the server
            Process process = WharfProcess.start(dir, errors, "server", "--config", "config/wharf.yaml", "--port", "0");
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
            String ready = out.readLine();
            if (ready == null) {
                throw new AssertionError("the server exited before it was ready: "
                        + Files.readString(errors));
            }
            Matcher tcp = Pattern.compile("tcp://[^,\\s]+").matcher(ready);
            assertTrue(tcp.find(), ready);
            List<String> guide = new ArrayList<>(); // printed with the ready line, when it names the HTTP listener
            for (int i = 0; i < 4 && ready.contains(" and http://"); i++) {
                guide.add(out.readLine());
            }
            return new SampleServer(process, httpPort, tcp.group(), ready, guide,
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
        }

        /** A JMS connection to the server, started: as the docs' snippets connect, from this machine without a user. */
        Connection connect() throws JMSException {
            Connection connection = new WharfConnectionFactory(tcpUrl).createConnection();
            connection.start();
            return connection;
        }

        HttpResponse<String> get(String path) throws Exception {
            return client.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> post(String path, String body) throws Exception {
            return client.send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(), HttpResponse.BodyHandlers.ofString());
        }

        private URI uri(String path) {
            return URI.create("http://127.0.0.1:" + httpPort + path); // as curl, from this machine
        }

        @Override
        public void close() throws Exception {
            process.toHandle().destroy(); // SIGTERM
            assertTrue(process.waitFor(STOP_SECONDS, TimeUnit.SECONDS), "server did not stop on SIGTERM");
        }
    }
}
