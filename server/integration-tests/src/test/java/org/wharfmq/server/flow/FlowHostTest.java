package org.wharfmq.server.flow;

import io.netty.util.concurrent.FastThreadLocalThread;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.cli.FlowCommandAccess;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Flows hosted in the server: jars in class loaders of their own, flows from the configuration, redeploy under
 * load, and the admin path behind {@code wharf flow}.
 */
class FlowHostTest {

    @TempDir
    static Path jars;
    private static Path jarV1;
    private static Path jarV2;
    private static Path jarV3;

    private TestServer testServer;
    private WharfServer server;
    private FlowHost flowHost;
    /** The flow host settings a (re)start of {@link #testServer} gives its new flow host. */
    private FlowHostSettings settings;

    /** A flow jar whose library class lib.Greeting says {@code version}; its flow reads IN.x and writes OUT.x. */
    private static Path flowJar(String flow, String version) throws Exception {
        return TestJars.build(jars, flow + "-" + version + ".jar", Map.of(
                "lib.Greeting", "package lib; public final class Greeting { public static String text() { return \""
                        + version + "\"; } }",
                "flows.Factory", """
                        package flows;
                        import org.wharfmq.flow.*;
                        import org.wharfmq.flow.node.*;
                        public final class Factory implements FlowFactory {
                            public FlowDefinition create() {
                                return FlowDefinition.builder("FLOW")
                                        .node("in", InputNode.queue("IN.FLOW"))
                                        .node("greet", new Greet())
                                        .node("out", OutputNode.queue("OUT.FLOW"))
                                        .wire("in", "out", "greet")
                                        .wire("greet", "out", "out")
                                        .build();
                            }
                        }
                        """.replace("FLOW", flow),
                "flows.Greet", """
                        package flows;
                        import org.wharfmq.flow.*;
                        public final class Greet extends JavaComputeNode {
                            public void evaluate(MessageAssembly assembly) throws Exception {
                                MessageAssembly out = assembly.copy();
                                out.message().setUserProperty("greeting", lib.Greeting.text());
                                propagate("out", out);
                            }
                        }
                        """));
    }

    @BeforeEach
    void start() throws Exception {
        if (jarV1 == null) {
            jarV1 = flowJar("A", "v1");
            jarV2 = flowJar("B", "v2");
            jarV3 = flowJar("A", "v3");
        }
    }

    @AfterEach
    void stop() {
        if (testServer != null) {
            testServer.close();
        }
    }

    /**
     * Starts {@link #server} on a test server with a flow host, {@link #flowHost}, that starts {@code configured}.
     * Each restart of {@link #testServer} gets a new flow host with the same configured flows, as a restarted
     * server reads them from its configuration file.
     */
    private void start(FlowHostSettings settings, FlowConfig... configured) throws Exception {
        start(settings, org.wharfmq.server.security.Authenticator.localOnly(), configured);
    }

    /** As {@link #start(FlowHostSettings, FlowConfig...)}; a restart takes the {@link #settings} of the moment. */
    private void start(FlowHostSettings settings, org.wharfmq.server.security.Authenticator users,
                       FlowConfig... configured) throws Exception {
        this.settings = settings.withFlows(List.of(configured));
        testServer = TestServer.start(UnaryOperator.identity(), config -> {
            flowHost = new FlowHost(this.settings);
            return WharfServer.builder(config).authenticator(users)
                    .plugins(flowHost, new AdminPlugin(flowHost.adminCommands())).start();
        });
        server = testServer.server();
    }

    /** With flowHostUser, the flows log in as that user: what they send carries it as JMSXUserID. */
    @Test
    void flowsConnectAsTheConfiguredServiceUser() throws Exception {
        start(FlowHostSettings.defaults().withUser("flows", org.wharfmq.server.TestUsers.password("flows")),
                org.wharfmq.server.TestUsers.of("flows"), new FlowConfig(jarV1.toString(), "flows.Factory", 1));
        try (Client client = new Client(server.vmUrl())) {
            client.send("IN.A", "hello", 0);
            assertEquals("flows", client.receive("OUT.A").getStringProperty("JMSXUserID"));
        }
    }

    /** A wrong service password stops the server's start with the login's error, rather than running flows as nobody. */
    @Test
    void aWrongServicePasswordFailsTheStart() {
        Exception e = assertThrows(Exception.class, () -> start(FlowHostSettings.defaults().withUser("flows", "wrong"),
                org.wharfmq.server.TestUsers.of("flows"), new FlowConfig(jarV1.toString(), "flows.Factory", 1)));
        assertTrue(String.valueOf(e.getMessage()).contains("Authentication failed for user 'flows'"), String.valueOf(e));
    }

    @Test
    void twoFlowJarsWithConflictingLibraryVersionsBothWork() throws Exception {
        start(FlowHostSettings.defaults());
        flowHost.deploy(jarV1, "flows.Factory", 1);
        flowHost.deploy(jarV2, "flows.Factory", 1);
        try (Client client = new Client(server.vmUrl())) {
            client.send("IN.A", "a", 0);
            client.send("IN.B", "b", 0);
            assertEquals("v1", client.receive("OUT.A").getStringProperty("greeting"));
            assertEquals("v2", client.receive("OUT.B").getStringProperty("greeting"));
        }
        assertEquals(2, flowHost.flows().size());
    }

    /**
     * The flow host's instance threads are Netty's own kind: the buffers their sends are encoded into come from the
     * thread's cache of the pooled allocator, where a plain thread has none and takes every buffer from the shared
     * arenas under their locks (issue 36, the flow's trip).
     */
    @Test
    void instanceThreadsAreNettyThreadsWithTheirOwnBufferCache() throws Exception {
        start(FlowHostSettings.defaults());
        flowHost.deploy(() -> FlowDefinition.builder("THREADS")
                .node("in", InputNode.queue("IN.THREADS"))
                .node("mark", new MarkThread())
                .node("out", OutputNode.queue("OUT.THREADS"))
                .wire("in", "out", "mark")
                .wire("mark", "out", "out")
                .build(), 1);
        try (Client client = new Client(server.vmUrl())) {
            client.send("IN.THREADS", "which thread?", 0);
            Message out = client.receive("OUT.THREADS");
            assertEquals(FastThreadLocalThread.class.getName(), out.getStringProperty("threadClass"));
            assertTrue(out.getStringProperty("threadName").startsWith("wharf-flow-THREADS-1"),
                    out.getStringProperty("threadName"));
        }
    }

    /** Says which thread ran it: its class and name, as user properties. */
    private static final class MarkThread extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            MessageAssembly out = assembly.copy();
            out.message().setUserProperty("threadClass", Thread.currentThread().getClass().getName());
            out.message().setUserProperty("threadName", Thread.currentThread().getName());
            propagate("out", out);
        }
    }

    @Test
    void configuredFlowsStartWithTheServer() throws Exception {
        start(FlowHostSettings.defaults(), new FlowConfig(jarV1.toString(), "flows.Factory", 2));
        assertEquals(2, flowHost.flow("A").running().instances());
        try (Client client = new Client(server.vmUrl())) {
            client.send("IN.A", "hello", 0);
            assertEquals("v1", client.receive("OUT.A").getStringProperty("greeting"));
        }
    }

    @Test
    void redeployUnderLoadLosesAndDuplicatesNothing() throws Exception {
        start(FlowHostSettings.defaults());
        flowHost.deploy(jarV1, "flows.Factory", 2);
        int total = 600;
        BitSet seen = new BitSet(total);
        try (Client sender = new Client(server.vmUrl()); Client receiver = new Client(server.vmUrl())) {
            CompletableFuture<Void> sending = CompletableFuture.runAsync(() -> {
                for (int seq = 0; seq < total; seq++) {
                    sender.send("IN.A", "m", seq);
                }
            });
            for (int i = 0; i < 3; i++) {
                receiver.receive("OUT.A"); // the flow is busy: redeploy while messages are in flight
                flowHost.deploy(jarV1, "flows.Factory", 2);
            }
            sending.get(30, TimeUnit.SECONDS);
            for (int i = 3; i < total; i++) {
                int seq = receiver.receive("OUT.A").getIntProperty("seq");
                assertFalse(seen.get(seq), "message " + seq + " was processed twice");
                seen.set(seq);
            }
            flowHost.undeploy("A");
        }
        // after the close: the receiver's last AUTO_ACKNOWLEDGE acknowledgement (which may wait 20 ms for a ride)
        // reached the server before the close was answered, so the depth counts no message still being delivered
        assertEquals(0, server.queueManager().depth("OUT.A"), "more outputs than inputs: a duplicate");
        assertEquals(0, server.queueManager().depth("IN.A"), "an input was left behind");
        assertEquals(total - 3, seen.cardinality());
    }

    @Test
    void flowCommandDeploysListsMeasuresTracesAndUndeploysThroughTheCommandQueue() throws Exception {
        start(FlowHostSettings.defaults().withRemoteDeploy(true));
        String url = server.tcpUrl();
        FlowCommandAccess.Result deployed = FlowCommandAccess.run("flow", "deploy", jarV2.toString(),
                "--class", "flows.Factory", "--instances", "2", "--url", url);
        assertEquals(0, deployed.status(), deployed.err());
        assertTrue(deployed.out().contains("Deployed B") && deployed.out().contains("instances 2"), deployed.out());

        try (Client client = new Client(server.vmUrl())) {
            client.send("IN.B", "x", 7);
            assertEquals("v2", client.receive("OUT.B").getStringProperty("greeting"));
        }
        FlowCommandAccess.Result list = FlowCommandAccess.run("flow", "list", "--url", url);
        assertTrue(list.out().startsWith("B "), list.out());
        FlowCommandAccess.Result stats = FlowCommandAccess.run("flow", "stats", "B", "--timing", "on", "--url", url);
        assertTrue(stats.out().contains("flow B: invocations 1, failures 0") && stats.out().contains("timing on"),
                stats.out());
        assertTrue(flowHost.flow("B").running().statistics().timing());
        assertEquals(0, FlowCommandAccess.run("flow", "trace", "B", "off", "--url", url).status());
        assertFalse(flowHost.flow("B").running().traceEnabled());

        assertEquals(0, FlowCommandAccess.run("flow", "undeploy", "B", "--url", url).status());
        assertNull(flowHost.flow("B"));
        FlowCommandAccess.Result again = FlowCommandAccess.run("flow", "undeploy", "B", "--url", url);
        assertEquals(1, again.status());
        assertTrue(again.err().contains("No flow named 'B' is deployed ('wharf flow list' lists the deployed flows)."),
                again.err());
        FlowCommandAccess.Result bad = FlowCommandAccess.run("flow", "deploy", jarV2.toString(), "--class",
                "flows.Missing", "--url", url);
        assertTrue(bad.status() == 1 && bad.err().contains("flows.Missing is not in flow jar"), bad.err());
    }

    @Test
    void deployOverTheWireIsRefusedByDefaultAndLoadsNothing() throws Exception {
        Path trace = jars.resolve("intruder-ran");
        // a valid flow whose class, once loaded, leaves a file behind: the trace of code run in the server
        Path intruder = TestJars.build(jars, "intruder.jar", Map.of("flows.Intruder", """
                package flows;
                import org.wharfmq.flow.*;
                import org.wharfmq.flow.node.*;
                public final class Intruder implements FlowFactory {
                    static {
                        try {
                            java.nio.file.Files.writeString(java.nio.file.Path.of("TRACE"), "loaded");
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }
                    public FlowDefinition create() {
                        return FlowDefinition.builder("INTRUDER")
                                .node("in", InputNode.queue("IN.INTRUDER"))
                                .node("out", OutputNode.queue("OUT.INTRUDER"))
                                .wire("in", "out", "out")
                                .build();
                    }
                }
                """.replace("TRACE", trace.toString().replace("\\", "\\\\"))));
        start(FlowHostSettings.defaults());
        String url = server.tcpUrl();

        FlowCommandAccess.Result refused = FlowCommandAccess.run("flow", "deploy", intruder.toString(),
                "--class", "flows.Intruder", "--instances", "3", "--url", url);
        assertEquals(1, refused.status(), refused.out());
        assertTrue(refused.err().contains("Remote deploy is disabled") && refused.err().contains("remoteDeploy: true"),
                refused.err());
        // what turning it on would mean: code in the server, from whoever has the admin permission
        assertTrue(refused.err().contains("runs code in the server")
                && refused.err().contains("everyone with the admin permission"), refused.err());
        // the command line says how to deploy it from the server's configuration instead
        assertTrue(refused.err().contains("flows:") && refused.err().contains("jar: " + intruder.toAbsolutePath())
                && refused.err().contains("class: flows.Intruder") && refused.err().contains("instances: 3"),
                refused.err());

        FlowCommandAccess.Result list = FlowCommandAccess.run("flow", "list", "--url", url);
        assertEquals("No flows deployed.", list.out().strip(), "the server answers it runs no flow");
        assertEquals(List.of(), flowHost.flows());
        assertFalse(Files.exists(trace), "the jar's class was loaded in the server");
        Path kept = testServer.config().dataDirectory().resolve("flows");
        if (Files.exists(kept)) {
            try (Stream<Path> files = Files.list(kept)) {
                assertEquals(List.of(), files.toList(), "nothing of the refused jar is kept");
            }
        }
        server = testServer.restart();
        assertEquals(List.of(), flowHost.flows(), "nothing comes back at restart");
        assertFalse(Files.exists(trace), "the jar's class was loaded at restart");

        // the trace is a real witness: the same jar, allowed, runs and leaves it
        settings = settings.withRemoteDeploy(true);
        server = testServer.restart();
        FlowCommandAccess.Result allowed = FlowCommandAccess.run("flow", "deploy", intruder.toString(),
                "--class", "flows.Intruder", "--url", server.tcpUrl());
        assertEquals(0, allowed.status(), allowed.err());
        assertTrue(Files.exists(trace));
    }

    @Test
    void aFlowDeployedWithTheCommandIsDeployedAgainAfterARestartUntilUndeployed() throws Exception {
        start(FlowHostSettings.defaults().withRemoteDeploy(true));
        FlowCommandAccess.Result deployed = FlowCommandAccess.run("flow", "deploy", jarV2.toString(),
                "--class", "flows.Factory", "--instances", "2", "--url", server.tcpUrl());
        assertEquals(0, deployed.status(), deployed.err());

        server = testServer.restart();
        DeployedFlow kept = flowHost.flow("B");
        assertNotNull(kept, "the deployment survived the restart");
        assertEquals(2, kept.running().instances());
        try (Client client = new Client(server.vmUrl())) {
            client.send("IN.B", "after restart", 1);
            assertEquals("v2", client.receive("OUT.B").getStringProperty("greeting"));
        }
        assertEquals(0, FlowCommandAccess.run("flow", "undeploy", "B", "--url", server.tcpUrl()).status());

        server = testServer.restart();
        assertNull(flowHost.flow("B"), "an undeployed flow stays undeployed");
        try (Stream<Path> left = Files.list(testServer.config().dataDirectory().resolve("flows"))) {
            assertEquals(List.of(), left.toList(), "undeploy deletes the kept jar and its record");
        }
    }

    @Test
    void aKeptDeploymentWinsOverAConfiguredFlowOfTheSameNameUntilUndeployedWhileRemoteDeployIsOn() throws Exception {
        start(FlowHostSettings.defaults().withRemoteDeploy(true), new FlowConfig(jarV1.toString(), "flows.Factory", 1));
        FlowCommandAccess.Result deployed = FlowCommandAccess.run("flow", "deploy", jarV3.toString(),
                "--class", "flows.Factory", "--url", server.tcpUrl());
        assertEquals(0, deployed.status(), deployed.err());

        settings = settings.withRemoteDeploy(false);
        server = testServer.restart();
        DeployedFlow configured = flowHost.flow("A");
        assertFalse(configured.describe().contains("kept across restarts"),
                "with remote deploy off, the upload kept from the wire is not started: " + configured.describe());
        assertGreeting("v1");

        settings = settings.withRemoteDeploy(true);
        server = testServer.restart();
        assertTrue(flowHost.flow("A").describe().contains("kept across restarts"));
        assertGreeting("v3");
        assertEquals(0, FlowCommandAccess.run("flow", "undeploy", "A", "--url", server.tcpUrl()).status());

        server = testServer.restart();
        assertGreeting("v1");
    }

    /** Flow A answers a message with {@code version}'s greeting. */
    private void assertGreeting(String version) throws Exception {
        try (Client client = new Client(server.vmUrl())) {
            client.send("IN.A", "which one", 1);
            assertEquals(version, client.receive("OUT.A").getStringProperty("greeting"));
        }
    }

    @Test
    void aKeptDeploymentThatCannotStartStopsTheServerStartNamingItsRecord() throws Exception {
        start(FlowHostSettings.defaults().withRemoteDeploy(true));
        assertEquals(0, FlowCommandAccess.run("flow", "deploy", jarV2.toString(), "--class", "flows.Factory",
                "--url", server.tcpUrl()).status());
        testServer.stop();
        server = null;
        Path flows = testServer.config().dataDirectory().resolve("flows");
        try (Stream<Path> jarsKept = Files.list(flows)) {
            for (Path jar : (Iterable<Path>) jarsKept.filter(p -> p.toString().endsWith(".jar"))::iterator) {
                Files.delete(jar);
            }
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, testServer::restart);
        assertTrue(e.getMessage().contains("flow 'B'") && e.getMessage().contains(".deployment.json")
                && e.getMessage().contains("does not exist"), e.getMessage());
    }

    /** A client connection with one session, for one thread. */
    private static final class Client implements AutoCloseable {
        private final Connection connection;
        private final Session session;
        private final MessageProducer producer;
        private final Map<String, MessageConsumer> consumers = new HashMap<>();

        Client(String url) throws Exception {
            connection = new WharfConnectionFactory(url).createConnection();
            connection.start();
            session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            producer = session.createProducer(null);
        }

        void send(String queue, String text, int seq) {
            try {
                TextMessage message = session.createTextMessage(text);
                message.setIntProperty("seq", seq);
                producer.send(session.createQueue(queue), message, DeliveryMode.NON_PERSISTENT, 4, 0);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        Message receive(String queue) throws Exception {
            MessageConsumer consumer = consumers.get(queue);
            if (consumer == null) {
                consumer = session.createConsumer(session.createQueue(queue));
                consumers.put(queue, consumer);
            }
            Message message = consumer.receive(FlowFixture.RECEIVE_MILLIS);
            if (message == null) {
                throw new AssertionError("Nothing arrived on " + queue);
            }
            return message;
        }

        @Override
        public void close() throws Exception {
            connection.close();
        }
    }
}
