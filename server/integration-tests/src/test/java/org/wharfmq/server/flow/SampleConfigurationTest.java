package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.cli.WharfProcess;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sample configuration's flows, as a user runs them: {@code bin/wharf server --config config/wharf.yaml} from the
 * Wharf folder (here a copy of its layout: config/wharf.yaml, with only its host, ports, in-VM name and the flow jar's
 * path changed, and the working directory the data directory's parent; the HTTP request sample's URL gets the changed
 * port too), then the commands docs/flows.md ("Sample flows") gives. One server for the class (a child JVM and the sample jar compiled: seconds each); each test uses
 * what no other one touches.
 */
@Tag("slow")
class SampleConfigurationTest {

    private static final long STOP_SECONDS = 30;
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
     * The HTTP request sample calls the echo flow over HTTP (the echo flow sees a POST to its own path) and answers
     * with the service's status and body.
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
     * never the database's message (which quotes the row in the way), and leaves nothing behind; a value with SQL in it is stored as it is.
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
    private record SampleServer(Process process, int httpPort, HttpClient client) implements AutoCloseable {

        static SampleServer start(Path dir) throws Exception {
            int httpPort;
            try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                httpPort = free.getLocalPort();
            }
            Path sources = ROOT.resolve("config/flows/sample-flow/src/main/java");
            assertTrue(Files.readString(sources.resolve("org/wharfmq/sample/flow/EchoClientFlow.java"))
                    .contains("\"http://127.0.0.1:7480\""), "the HTTP request sample calls the sample's HTTP port");
            Path jar = TestJars.buildFromSources(dir, "sample-flow.jar", sources,
                    source -> source.replace("\"http://127.0.0.1:7480\"", "\"http://127.0.0.1:" + httpPort + "\""));
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
            return new SampleServer(process, httpPort,
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
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
