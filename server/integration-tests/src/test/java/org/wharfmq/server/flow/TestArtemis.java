package org.wharfmq.server.flow;

import org.apache.activemq.artemis.api.core.Interceptor;
import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.protocol.core.impl.wireformat.SessionXAStartMessage;
import org.apache.activemq.artemis.core.server.JournalType;
import org.apache.activemq.artemis.core.server.Queue;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.wharfmq.flow.runtime.JmsProvider;
import org.wharfmq.server.FreePorts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * A real Apache ActiveMQ Artemis broker for the JMS nodes' tests, embedded in the test JVM and set up as the perf
 * harness's peer is ({@code ArtemisPeerMain}): one CORE acceptor on 127.0.0.1, security off, queues created on first
 * use, persistence on (NIO journal) in a directory of its own, so that it can be stopped and started again on the same
 * port with its messages. Deleted by {@link #close()}.
 */
final class TestArtemis implements AutoCloseable {

    /**
     * Artemis's audit loggers, off as a stock broker has them (held: {@link Logger} keeps configured loggers only
     * weakly).
     */
    private static final List<Logger> AUDIT_LOGGERS = Stream.of("base", "resource", "message")
            .map(name -> Logger.getLogger("org.apache.activemq.audit." + name)).toList();

    static {
        AUDIT_LOGGERS.forEach(logger -> logger.setLevel(Level.OFF));
    }

    private final Path data;
    private final int port;
    private EmbeddedActiveMQ broker;
    /** Guards {@link #xaStarts} and {@link #xaCalls}, written by the broker's threads, read by the test's. */
    private final Object xaCount = new Object();
    private long xaStarts;
    private long xaCalls;
    /** Counts the XA calls the broker receives from its clients (an incoming interceptor: the broker's own count). */
    private final Interceptor countingXa = (packet, connection) -> {
        if (packet.getClass().getSimpleName().startsWith("SessionXA")) {
            synchronized (xaCount) {
                xaCalls++;
                if (packet instanceof SessionXAStartMessage) {
                    xaStarts++;
                    xaCount.notifyAll();
                }
            }
        }
        return true;
    };

    private TestArtemis(Path data, int port) {
        this.data = data;
        this.port = port;
    }

    /** A broker on a free port, not started yet ({@link #start()}). */
    static TestArtemis onFreePort() throws IOException {
        return new TestArtemis(Files.createTempDirectory("wharf-artemis-"), FreePorts.one());
    }

    /** Starts the broker (again, with the messages it kept); returns once it accepts connections. */
    TestArtemis start() throws Exception {
        ConfigurationImpl configuration = new ConfigurationImpl();
        configuration.setName("wharf-test-artemis")
                .setPersistenceEnabled(true)
                .setSecurityEnabled(false)
                .setJournalType(JournalType.NIO)
                .setJournalDirectory(data.resolve("journal").toString())
                .setBindingsDirectory(data.resolve("bindings").toString())
                .setLargeMessagesDirectory(data.resolve("large-messages").toString())
                .setPagingDirectory(data.resolve("paging").toString())
                .addAcceptorConfiguration("tcp", url() + "?protocols=CORE");
        broker = new EmbeddedActiveMQ().setConfiguration(configuration);
        broker.start();
        broker.getActiveMQServer().getRemotingService().addIncomingInterceptor(countingXa);
        return this;
    }

    /** Stops the broker (its clients' connections fail); {@link #start()} brings it back. */
    void stop() throws Exception {
        if (broker != null) {
            broker.stop();
            broker = null;
        }
    }

    /** {@code tcp://127.0.0.1:PORT}. */
    String url() {
        return "tcp://127.0.0.1:" + port;
    }

    /** A client connection factory of the broker (for the test's own sends and receives). */
    ActiveMQConnectionFactory connectionFactory() {
        return new ActiveMQConnectionFactory(url());
    }

    /**
     * The provider as a flow host's {@code jmsProviders:} would give it: Artemis's JNDI, with the queues
     * {@code jms/NAME} bound to Artemis's queues {@code NAME}.
     */
    JmsProvider provider(String name, String... queues) {
        Map<String, String> jndi = new java.util.HashMap<>(Map.of(
                "java.naming.factory.initial", "org.apache.activemq.artemis.jndi.ActiveMQInitialContextFactory",
                "java.naming.provider.url", url()));
        for (String queue : queues) {
            jndi.put("queue.jms/" + queue, queue);
        }
        return new JmsProvider(name, jndi, "ConnectionFactory", null, null);
    }

    /**
     * A wharf.yaml in {@code dir} that deploys the sample bridge ({@code ArtemisBridgeFlow}, its jar built there from
     * config/flows/sample-flow) with this broker as its provider {@code artemis}.
     */
    Path sampleBridgeConfiguration(Path dir) throws IOException {
        return sampleBridgeConfiguration(dir, false, "");
    }

    /**
     * As {@link #sampleBridgeConfiguration(Path)}, the provider {@code xa: true} when {@code xa} (the bridge is then a
     * coordinated flow), with {@code more} (YAML: e.g. {@code flowHost:} settings) at its end.
     */
    Path sampleBridgeConfiguration(Path dir, boolean xa, String more) throws IOException {
        Path jar = TestJars.buildFromSources(dir, "sample-flow.jar",
                Path.of(System.getProperty("wharf.root"), "config", "flows", "sample-flow", "src", "main", "java"));
        return Files.writeString(dir.resolve("wharf.yaml"), """
                jmsProviders:
                  - name: artemis
                    jndi:
                      java.naming.factory.initial: org.apache.activemq.artemis.jndi.ActiveMQInitialContextFactory
                      java.naming.provider.url: %s
                      queue.jms/orders: ORDERS
                      queue.jms/invoices: INVOICES
                    xa: %s
                flows:
                  - jar: %s
                    class: org.wharfmq.sample.flow.ArtemisBridgeFlow
                """.formatted(url(), xa, jar) + more);
    }

    /** The messages on a queue of the broker, delivered and not yet acknowledged included (0 if it has none). */
    long messageCount(String queue) {
        Queue q = broker.getActiveMQServer().locateQueue(SimpleString.of(queue));
        return q == null ? 0 : q.getMessageCount();
    }

    /** The consumers a queue of the broker has now (0 if it has none, or is not there). */
    int consumerCount(String queue) {
        Queue q = broker.getActiveMQServer().locateQueue(SimpleString.of(queue));
        return q == null ? 0 : q.getConsumerCount();
    }

    /** The XA transactions prepared in the broker and not yet committed or rolled back (branches in doubt). */
    int prepared() {
        return broker.getActiveMQServer().getResourceManager().getPreparedTransactions().size();
    }

    /** The XA starts ({@code XAResource.start}) the broker has received from its clients, all its starts counted. */
    long xaStarts() {
        synchronized (xaCount) {
            return xaStarts;
        }
    }

    /**
     * The XA calls the broker has received from its clients (start, end, prepare, commit, rollback, a transaction
     * timeout set, a recovery scan's look for branches in doubt), all its starts counted.
     */
    long xaCalls() {
        synchronized (xaCount) {
            return xaCalls;
        }
    }

    /**
     * Waits until the broker has received {@code count} XA starts in all ({@link #xaStarts()}), up to {@code millis}.
     *
     * @return whether it has
     */
    boolean awaitXaStarts(long count, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        synchronized (xaCount) {
            while (xaStarts < count) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    return false;
                }
                xaCount.wait(left);
            }
            return true;
        }
    }

    /** The clients' connections the broker has open now. */
    int connectionCount() {
        return broker.getActiveMQServer().getConnectionCount();
    }

    @Override
    public void close() throws Exception {
        stop();
        try (Stream<Path> files = Files.walk(data)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
