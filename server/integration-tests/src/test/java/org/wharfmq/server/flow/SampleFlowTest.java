package org.wharfmq.server.flow;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.FlowProperties;
import org.wharfmq.flow.runtime.FlowJar;
import org.wharfmq.flow.runtime.RunningFlow;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.cli.ConfigurationFile;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.it.Receive;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sample flows of config/flows/sample-flow (compiled here from its sources, since the server module builds
 * first), deployed the way config/wharf.yaml deploys them; and the first run standalone against a remote server.
 */
class SampleFlowTest {

    /** The repository (set by the build). */
    private static final String ROOT = System.getProperty("wharf.root");
    private static final Path SAMPLE_SOURCES = Path.of(ROOT, "config", "flows", "sample-flow", "src", "main", "java");
    private static final Path SAMPLE_CONFIG = Path.of(ROOT, "config", "wharf.yaml");
    /** The broker reports' sale message (shared/fixtures), as the perf harness keeps it. */
    private static final Path SALE_MESSAGE = Path.of(ROOT, "perfharness", "src", "main", "resources", "org", "wharfmq",
            "perf", "flow", "wmb-sale-1k.xml");

    @TempDir
    Path dir;

    @Test
    void sampleConfigDeploysTheSampleFlow() {
        List<FlowConfig> flows = ConfigurationFile.load(SAMPLE_CONFIG).flowHost().flows();
        assertEquals(List.of(new FlowConfig("config/flows/sample-flow/target/sample-flow.jar",
                        "org.wharfmq.sample.flow.SampleFlow", 1),
                new FlowConfig("config/flows/sample-flow/target/sample-flow.jar",
                        "org.wharfmq.sample.flow.SaleStatementFlow", 1),
                new FlowConfig("config/flows/sample-flow/target/sample-flow.jar",
                        "org.wharfmq.sample.flow.EchoFlow", 2),
                new FlowConfig("config/flows/sample-flow/target/sample-flow.jar",
                        "org.wharfmq.sample.flow.EchoClientFlow", 1),
                new FlowConfig("config/flows/sample-flow/target/sample-flow.jar",
                        "org.wharfmq.sample.flow.OrdersDbFlow", 1),
                new FlowConfig("config/flows/sample-flow/target/sample-flow.jar",
                        "org.wharfmq.sample.flow.CsvFilesFlow", 1),
                new FlowConfig("config/flows/sample-flow/target/sample-flow.jar",
                        "org.wharfmq.sample.flow.RouteOrdersFlow", 1),
                new FlowConfig("config/flows/sample-flow/target/sample-flow.jar",
                        "org.wharfmq.sample.flow.OrderChecksFlow", 1),
                new FlowConfig("config/flows/sample-flow/target/sample-flow.jar",
                        "org.wharfmq.sample.flow.PriceAlertsFlow", 1)), flows);
        assertEquals(7480, ConfigurationFile.load(SAMPLE_CONFIG).http().port(), "the port the comments' curl calls");
    }

    /** The echo flow answers HTTP on the listener: a greeting to a request without a body, the body to one with. */
    @Test
    void echoFlowAnswersAnHttpRequest() throws Exception {
        Path jar = TestJars.buildFromSources(dir, "sample-flow.jar", SAMPLE_SOURCES);
        HttpPlugin http = new HttpPlugin(HttpSettings.on("127.0.0.1"));
        FlowHost host = new FlowHost(FlowHostSettings.defaults().withFlows(List.of(new FlowConfig(jar.toString(),
                "org.wharfmq.sample.flow.EchoFlow", 2))), http);
        try (TestServer testServer = TestServer.start(c -> c, config -> WharfServer.start(config, host, http))) {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> hello = client.send(HttpRequest.newBuilder(URI.create(http.url() + "/flows/echo"))
                    .build(), HttpResponse.BodyHandlers.ofString()); // anonymous, from this machine
            assertEquals(200, hello.statusCode(), hello.body());
            assertEquals("Hello from flow 'echo': GET /flows/echo by an anonymous caller. Send a body and it comes "
                    + "back.\n", hello.body());
            assertEquals("text/plain; charset=utf-8", hello.headers().firstValue("Content-Type").orElse(null));
            HttpResponse<String> echo = client.send(HttpRequest.newBuilder(URI.create(http.url() + "/flows/echo"))
                    .POST(HttpRequest.BodyPublishers.ofString("hi")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals("hi", echo.body());
        }
    }

    /**
     * The HTTP request sample calls the service its deployment's property serviceUrl names (here a plain HTTP server
     * of the test's) rather than the echo flow on the server's listener.
     */
    @Test
    void theHttpRequestSampleCallsTheServiceItsPropertyNames() throws Exception {
        Path jar = TestJars.buildFromSources(dir, "sample-flow.jar", SAMPLE_SOURCES);
        HttpServer service = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        service.createContext("/quote", exchange -> {
            byte[] body = ("quoted " + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8))
                    .getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        service.start();
        try {
            HttpPlugin http = new HttpPlugin(HttpSettings.on("127.0.0.1"));
            FlowHost host = new FlowHost(FlowHostSettings.defaults().withFlows(List.of(new FlowConfig(jar.toString(),
                    "org.wharfmq.sample.flow.EchoClientFlow", 1).with(FlowHostConfiguration.FlowEntry.PROPERTIES,
                    Map.of("serviceUrl", "http://127.0.0.1:" + service.getAddress().getPort() + "/quote")))), http);
            try (TestServer testServer = TestServer.start(c -> c, config -> WharfServer.start(config, host, http))) {
                HttpResponse<String> answer = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                        .send(HttpRequest.newBuilder(URI.create(http.url() + "/flows/echo-client"))
                                .POST(HttpRequest.BodyPublishers.ofString("hi")).build(),
                                HttpResponse.BodyHandlers.ofString());
                assertEquals(200, answer.statusCode(), answer.body());
                assertEquals("The echo flow answered 200: quoted hi", answer.body());
            }
        } finally {
            service.stop(0);
        }
    }

    /**
     * Without the property, the HTTP request sample calls the server's own listener at the address its configuration
     * gives; one whose port is chosen at start has none, and the flow is refused naming the property to set.
     */
    @Test
    void theHttpRequestSampleWithoutAPropertyNeedsAListenerWhosePortIsConfigured() throws Exception {
        Path jar = TestJars.buildFromSources(dir, "sample-flow.jar", SAMPLE_SOURCES);
        HttpPlugin http = new HttpPlugin(HttpSettings.on("127.0.0.1")); // port 0
        FlowHost host = new FlowHost(FlowHostSettings.defaults().withFlows(List.of(new FlowConfig(jar.toString(),
                "org.wharfmq.sample.flow.EchoClientFlow", 1))), http);
        Exception e = assertThrows(Exception.class,
                () -> TestServer.start(c -> c, config -> WharfServer.start(config, host, http)).close());
        assertTrue(causes(e).contains("give the flow the property serviceUrl (properties: under its entry in flows:)"),
                causes(e));
    }

    /** A property given to a flow that reads none (it does not override create(FlowProperties)) stops its deployment. */
    @Test
    void aPropertyGivenToAFlowThatReadsNoneIsRefused() throws Exception {
        Path jar = TestJars.buildFromSources(dir, "sample-flow.jar", SAMPLE_SOURCES);
        FlowHost host = new FlowHost(FlowHostSettings.defaults().withFlows(List.of(new FlowConfig(jar.toString(),
                "org.wharfmq.sample.flow.SampleFlow", 1).with(FlowHostConfiguration.FlowEntry.PROPERTIES,
                Map.of("serviceUrl", "http://127.0.0.1:1/")))));
        Exception e = assertThrows(Exception.class,
                () -> TestServer.start(c -> c, config -> WharfServer.start(config, host)).close());
        assertTrue(causes(e).contains("is given the properties [serviceUrl], but reads none: it does not override "
                + "create(FlowProperties)"), causes(e));
    }

    /** The messages of {@code e} and its causes, one a line. */
    private static String causes(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t).append('\n');
        }
        return all.toString();
    }

    /**
     * The database sample tells a database that gives no connection (503 with Retry-After: the same order may go
     * through later) from an order the database refuses (400).
     */
    @Test
    void theDatabaseSampleAnswers503WhenItsDatabaseGivesNoConnection() throws Exception {
        Path jar = TestJars.buildFromSources(dir, "sample-flow.jar", SAMPLE_SOURCES);
        HttpPlugin http = new HttpPlugin(HttpSettings.on("127.0.0.1"));
        FlowHost host = new FlowHost(FlowHostSettings.defaults()
                .withDataSources(List.of(new DataSourceConfig("samples", "jdbc:postgresql://127.0.0.1:1/nothing",
                        "wharf", "secret", 1, 250))) // a port nothing listens on: every connection refused
                .withFlows(List.of(new FlowConfig(jar.toString(), "org.wharfmq.sample.flow.OrdersDbFlow", 1))), http);
        try (TestServer testServer = TestServer.start(c -> c, config -> WharfServer.start(config, host, http))) {
            HttpResponse<String> answer = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
                    HttpRequest.newBuilder(URI.create(http.url() + "/flows/orders")).POST(HttpRequest.BodyPublishers
                            .ofString("{\"id\": 1, \"customer\": \"Ann\", \"total\": 12.50}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(503, answer.statusCode(), answer.body());
            assertEquals("5", answer.headers().firstValue("Retry-After").orElse(null));
            assertTrue(answer.body().startsWith("Orders cannot be taken now: Data source 'samples' gave no connection "
                    + "within 250 ms"), answer.body());
        }
    }

    @Test
    void flowEntryWithoutClassIsAConfigurationError() throws IOException {
        Path file = Files.writeString(dir.resolve("bad.yaml"), "flows:\n  - jar: x.jar\n");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(file));
        assertTrue(e.getMessage().contains("Flow number 1 under 'flows' needs a jar and a class"), e.getMessage());
    }

    /** A flow host that starts the flow {@code className} of {@code jar}, as the configuration's flows: do. */
    private static FlowHost hosting(Path jar, String className) {
        return new FlowHost(FlowHostSettings.defaults().withFlows(List.of(new FlowConfig(jar.toString(), className, 1))));
    }

    @Test
    void sampleFlowCopiesTheMessageAndSetsTwoProperties() throws Exception {
        Path jar = TestJars.buildFromSources(dir, "sample-flow.jar", SAMPLE_SOURCES);
        try (TestServer testServer = TestServer.start(c -> c,
                config -> WharfServer.start(config, hosting(jar, "org.wharfmq.sample.flow.SampleFlow")))) {
            Message out = requestReply(testServer.server().vmUrl(), "hello");
            assertEquals("hello", ((TextMessage) out).getText());
            assertEquals(1208, out.getIntProperty("CodedCharSetId"));
            assertEquals(546, out.getIntProperty("Encoding"));
            assertEquals("keep", out.getStringProperty("original"), "the copy keeps the input's properties");
        }
    }

    @Test
    void sameFlowRunsStandaloneAgainstARemoteServerOverTcp() throws Exception {
        Path jar = TestJars.buildFromSources(dir, "sample-flow.jar", SAMPLE_SOURCES);
        FlowHost flowHost = new FlowHost();
        try (TestServer testServer = TestServer.start(c -> c, config -> WharfServer.start(config, flowHost));
             FlowJar flowJar = FlowJar.open(jar, getClass().getClassLoader());
             RunningFlow flow = RunningFlow.start(flowJar.createFlow("org.wharfmq.sample.flow.SampleFlow", FlowProperties.NONE),
                     new WharfConnectionFactory(testServer.server().tcpUrl()), 1, false, flowJar.classLoader())) {
            WharfServer server = testServer.server();
            assertEquals(0, flowHost.flows().size(), "not hosted by the server");
            Message out = requestReply(server.tcpUrl(), "remote");
            assertEquals("remote", ((TextMessage) out).getText());
            assertEquals(546, out.getIntProperty("Encoding"));
            assertEquals(1, flow.statistics().invocations());
        }
    }

    @Test
    void xmlSampleSendsTestSalesAsideTurnsTheRestIntoStatementsAndBacksOutInvalidOnes() throws Exception {
        Path jar = TestJars.buildFromSources(dir, "sample-flow.jar", SAMPLE_SOURCES);
        String sale = Files.readString(SALE_MESSAGE).strip();
        try (TestServer testServer = TestServer.start(c -> c,
                config -> WharfServer.start(config, hosting(jar, "org.wharfmq.sample.flow.SaleStatementFlow")));
             Connection connection = new WharfConnectionFactory(testServer.server().vmUrl()).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer sales = session.createProducer(session.createQueue("SALES"));

            sales.send(session.createTextMessage(sale));
            assertEquals(sale, receiveText(session, "SALES.TEST"), "a test sale goes aside unchanged");

            sales.send(session.createTextMessage(sale.replace("<Last>Test</Last>", "<Last>Live</Last>")));
            String statements = receiveText(session, "SALES.STATEMENTS");
            assertTrue(statements.contains("<Statement Type=\"Monthly\" Style=\"Full\">"), statements);
            assertTrue(statements.contains("<Name>Braithwaite</Name>") && statements.contains("<Name>Dunnwin</Name>"),
                    statements);
            assertFalse(statements.contains("<Invoice>"), "the body is the stylesheet's result: " + statements);

            sales.send(session.createTextMessage(sale.replace("<Quantity>02</Quantity>", "<Quantity>500</Quantity>")));
            Message invalid = receive(session, "SALES.BAD");
            assertTrue(invalid.getStringProperty("WharfExceptionList").contains("cvc-maxInclusive-valid"),
                    invalid.getStringProperty("WharfExceptionList"));
            sales.send(session.createTextMessage("<Parent><First>1</First>"));
            Message malformed = receive(session, "SALES.BAD");
            assertEquals("<Parent><First>1</First>", ((TextMessage) malformed).getText());
            // nothing but the one statement: one instance takes the sales one at a time, and the last one's output
            // has come, so every earlier one is committed
            Receive.nothingMore(session.createConsumer(session.createQueue("SALES.STATEMENTS")));
        }
    }

    @Test
    void recordsSampleTurnsCsvIntoXmlAndBacksOutWhatIsNotCsv() throws Exception {
        Path jar = TestJars.buildFromSources(dir, "sample-flow.jar", SAMPLE_SOURCES);
        try (TestServer testServer = TestServer.start(c -> c,
                config -> WharfServer.start(config, hosting(jar, "org.wharfmq.sample.flow.CsvToXmlFlow")));
             Connection connection = new WharfConnectionFactory(testServer.server().vmUrl()).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer orders = session.createProducer(session.createQueue("ORDERS.CSV"));

            orders.send(session.createTextMessage("id,name,qty\n1,Ann,3\n2,\"Smith, Bob\",10\n"));
            assertEquals("<Orders><Order><id>1</id><name>Ann</name><qty>3</qty></Order><Order><id>2</id>"
                    + "<name>Smith, Bob</name><qty>10</qty></Order></Orders>", receiveText(session, "ORDERS.XML"));
            orders.send(session.createTextMessage("id,name,qty\n1,Ann\n"));
            Message bad = receive(session, "ORDERS.CSV.BAD");
            assertEquals("id,name,qty\n1,Ann\n", ((TextMessage) bad).getText());
            assertTrue(bad.getStringProperty("WharfExceptionList").contains("CSV record 1 (line 2)"),
                    bad.getStringProperty("WharfExceptionList"));
        }
    }

    private static String receiveText(Session session, String queue) throws Exception {
        return ((TextMessage) receive(session, queue)).getText();
    }

    private static Message receive(Session session, String queue) throws Exception {
        try (MessageConsumer consumer = session.createConsumer(session.createQueue(queue))) {
            Message message = consumer.receive(FlowFixture.RECEIVE_MILLIS);
            if (message == null) {
                throw new AssertionError("The sample flow sent nothing to " + queue);
            }
            return message;
        }
    }

    private static Message requestReply(String url, String text) throws Exception {
        try (Connection connection = new WharfConnectionFactory(url).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TextMessage in = session.createTextMessage(text);
            in.setStringProperty("original", "keep");
            session.createProducer(session.createQueue("SAMPLE.IN")).send(in);
            Message out = session.createConsumer(session.createQueue("SAMPLE.OUT")).receive(FlowFixture.RECEIVE_MILLIS);
            if (out == null) {
                throw new AssertionError("The sample flow sent nothing to SAMPLE.OUT");
            }
            return out;
        }
    }
}
