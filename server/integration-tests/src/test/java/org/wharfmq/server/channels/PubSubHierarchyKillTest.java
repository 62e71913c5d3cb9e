package org.wharfmq.server.channels;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.it.TcpProxy;
import org.wharfmq.server.store.ServerProcess;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A publish/subscribe hierarchy of two queue managers, QM1 the parent of QM2, while publications are forwarded to a
 * durable subscriber on the other one: QM2, publishing to QM1's subscriber and subscribing to QM1's publications, runs
 * as a process killed with SIGKILL; then the connection between them is cut. Each persistent publication arrives once, in order;
 * each non-persistent one at most once, in order; and a subscription made while the partner was unreachable is
 * honoured once it is back.
 */
@Tag("slow")
class PubSubHierarchyKillTest {

    /** Persistent publications, each followed by a non-persistent one. */
    private static final int PUBLICATIONS = 300;
    /** Where the partner is killed or the connection cut: after this many persistent publications arrived. */
    private static final int FAILURE_AT = 100;
    private static final long ARRIVAL_MS = 30_000;

    @TempDir
    Path dir;

    private final ChannelServers servers = new ChannelServers();

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    /** What to do once FAILURE_AT persistent publications arrived; may return the subscriber to read on with. */
    private interface Failure {
        MessageConsumer fail(MessageConsumer subscriber) throws Exception;
    }

    @Test
    void aMemberKilledWhileItsPublicationsAndItsSubscribersPublicationsAreForwarded() throws Exception {
        int port1 = FreePorts.one();
        int port2 = FreePorts.one();
        TestServer qm1 = servers.keep(member("QM1", port1, new HierarchySettings(null, List.of("QM2")), port2, null));
        Path config = config("QM2", "parent: QM1", "QM1", qm1.server().tcpUrl());
        Path data = dir.resolve("qm2-data");
        ServerProcess[] qm2 = {ServerProcess.start(data, port2, "--config", config.toString())};
        try {
            // a durable subscriber on each: QM2 is killed as the subscribing member and as the publishing one
            Connection[] subscriber = {durableSubscriber(qm2[0].url(), "audit-2")};
            Session session = subscriber[0].createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer audit2 = session.createDurableSubscriber(session.createTopic("orders/#"), "audit");
            Session onQm1 = durableSubscriber(qm1.server().tcpUrl(), "audit-1")
                    .createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer audit1 = onQm1.createDurableSubscriber(onQm1.createTopic("returns/#"), "audit");
            awaitProxies(qm1.server().tcpUrl(), 1);
            awaitProxies(qm2[0].url(), 1);
            publish(qm1.server().tcpUrl(), "orders/placed");
            publish(qm2[0].url(), "returns/made");

            Session late = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer[] lateSubscriber = new MessageConsumer[1];
            receiveAll(audit2, s -> {
                subscriber[0].close(); // first, so that no acknowledgement of it is lost: each arrives once
                qm2[0].kill(); // SIGKILL, in the middle of the forwarding both ways
                lateSubscriber[0] = late.createConsumer(late.createTopic("late/#")); // while QM2 is down
                qm2[0] = ServerProcess.start(data, port2, "--config", config.toString());
                subscriber[0] = durableSubscriber(qm2[0].url(), "audit-2");
                Session again = subscriber[0].createSession(false, Session.AUTO_ACKNOWLEDGE);
                return again.createDurableSubscriber(again.createTopic("orders/#"), "audit");
            }, () -> qm2[0].outputSoFar());
            receiveAll(audit1, s -> s, () -> qm2[0].outputSoFar()); // what QM2 published, forwarded across its kill

            awaitProxies(qm2[0].url(), 2); // QM1's new subscription's set waited on QM1's transmission queue
            publishOne(qm2[0].url(), "late/news", "late");
            assertEquals("late", text(lateSubscriber[0]));
        } finally {
            qm2[0].close();
        }
    }

    @Test
    void theConnectionCutDuringForwarding() throws Exception {
        int port1 = FreePorts.one();
        int port2 = FreePorts.one();
        try (TcpProxy toQm1 = TcpProxy.start(port1); TcpProxy toQm2 = TcpProxy.start(port2)) {
            TestServer qm1 = servers.keep(member("QM1", port1, new HierarchySettings(null, List.of("QM2")), port2,
                    toQm2.url()));
            TestServer qm2 = servers.keep(member("QM2", port2, new HierarchySettings("QM1", List.of()), port1,
                    toQm1.url()));
            Connection subscriber = durableSubscriber(qm2.server().tcpUrl(), "audit-2");
            Session session = subscriber.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer audit = session.createDurableSubscriber(session.createTopic("orders/#"), "audit");
            awaitProxies(qm1.server().tcpUrl(), 1);
            publish(qm1.server().tcpUrl(), "orders/placed");

            Session late = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer[] lateSubscriber = new MessageConsumer[1];
            receiveAll(audit, s -> {
                toQm1.cut(); // both ways, in the middle of the forwarding
                toQm2.cut();
                lateSubscriber[0] = late.createConsumer(late.createTopic("late/#")); // while QM1 is unreachable
                toQm1.heal();
                toQm2.heal();
                return s;
            }, () -> "");

            awaitProxies(qm1.server().tcpUrl(), 2);
            publishOne(qm1.server().tcpUrl(), "late/news", "late");
            assertEquals("late", text(lateSubscriber[0]));
        }
    }

    /**
     * A member in this JVM, with the hierarchy, a sender to its partner (at {@code partnerPort}, or through
     * {@code partnerUrl} when not null), a receiver bound to the partner, and the admin plugin.
     */
    private static TestServer member(String name, int port, HierarchySettings hierarchy, int partnerPort,
                                     String partnerUrl) throws Exception {
        String partner = hierarchy.partners().get(0);
        String url = partnerUrl != null ? partnerUrl : "tcp://127.0.0.1:" + partnerPort;
        return TestServer.start(c -> c.name(name).port(port).autoCreate(false)
                .queue(QueueDefinition.transmissionQueue(partner)), c -> {
                    ChannelsPlugin channels = new ChannelsPlugin(new ChannelSettings(List.of(
                            ChannelDefinition.sender(name + ".TO." + partner, url, partner, null, null)
                                    .withBatchSize(10).withTimes(50, 60_000).withMaxRetry(500),
                            ChannelDefinition.receiver(partner + ".TO." + name, null, partner))));
                    PubSubHierarchy plugin = new PubSubHierarchy(hierarchy, channels);
                    return WharfServer.builder(c).plugins(plugin, channels,
                            new AdminPlugin(plugin.adminCommands())).start();
                });
    }

    /** The configuration file of member {@code name} run as a process, its partner at {@code partnerUrl}. */
    private Path config(String name, String relation, String partner, String partnerUrl) throws Exception {
        Path config = dir.resolve(name + ".yaml");
        Files.writeString(config, "name: " + name + "\nautoCreate: false\nhierarchy:\n  " + relation + "\n"
                + "queues:\n  - name: " + partner + "\n    usage: transmission\n"
                + "channels:\n  - name: " + name + ".TO." + partner + "\n    type: sender\n    connection: "
                + partnerUrl + "\n    transmissionQueue: " + partner + "\n    batchSize: 10\n"
                + "    retryMillis: 50\n    maxRetryMillis: 500\n"
                + "  - name: " + partner + ".TO." + name + "\n    type: receiver\n    partnerQueueManager: " + partner
                + "\n");
        return config;
    }

    private Connection durableSubscriber(String url, String clientId) throws Exception {
        Connection connection = servers.keep(new WharfConnectionFactory(url).createConnection());
        connection.setClientID(clientId);
        connection.start();
        return connection;
    }

    /** Asks {@code url}'s queue manager until its one partner has {@code count} proxy subscriptions there. */
    private static void awaitProxies(String url, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ARRIVAL_MS);
        long proxies = proxies(url);
        while (proxies != count && System.nanoTime() < deadline) {
            LockSupport.parkNanos(10_000_000); // asks the queue manager again
            proxies = proxies(url);
        }
        assertEquals(count, proxies, "the partner's proxy subscriptions on " + url);
    }

    private static long proxies(String url) throws Exception {
        JsonNode answer = AdminCli.request(url, null, "display-pubsub", Map.of());
        return answer.get("result").get("partners").get(0).get("proxySubscriptions").asLong();
    }

    /**
     * Publishes to {@code topic}, in one transaction, "p i" persistent and "n i" non-persistent in turn, then "end"
     * persistent.
     */
    private static void publish(String url, String topic) throws Exception {
        try (Connection connection = new WharfConnectionFactory(url).createConnection()) {
            Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
            MessageProducer producer = session.createProducer(session.createTopic(topic));
            for (int i = 0; i < PUBLICATIONS; i++) {
                producer.send(session.createTextMessage("p " + i), DeliveryMode.PERSISTENT, 4, 0);
                producer.send(session.createTextMessage("n " + i), DeliveryMode.NON_PERSISTENT, 4, 0);
            }
            producer.send(session.createTextMessage("end"), DeliveryMode.PERSISTENT, 4, 0);
            session.commit();
        }
    }

    private static void publishOne(String url, String topic, String text) throws Exception {
        try (Connection connection = new WharfConnectionFactory(url).createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createProducer(session.createTopic(topic)).send(session.createTextMessage(text),
                    DeliveryMode.PERSISTENT, 4, 0);
        }
    }

    /**
     * Receives up to "end": every persistent publication once and in order, each non-persistent one at most once and
     * in order; {@code failure} runs once FAILURE_AT persistent ones arrived. Then nothing more. The one repeat
     * allowed: the last persistent publication received before the failure, once, as the next persistent one after
     * it. The subscriber acknowledges automatically, and such an acknowledgement is not answered, so the member
     * killed just after it may not have it on disk yet (JMS 1.1 section 4.4.13: "prepared for redelivery of the last
     * consumed message"; docs/persistence.md).
     */
    private static void receiveAll(MessageConsumer subscriber, Failure failure, OutputSource output)
            throws Exception {
        int persistent = 0;
        int lastNonPersistent = -1;
        List<String> received = new ArrayList<>();
        MessageConsumer reading = subscriber;
        boolean failed = false;
        boolean repeatAllowed = false;
        while (true) {
            if (persistent == FAILURE_AT && !failed) {
                reading = failure.fail(reading);
                failed = true;
                repeatAllowed = true;
            }
            Message m = reading.receive(ARRIVAL_MS);
            assertNotNull(m, "after " + tail(received) + " nothing arrived within " + ARRIVAL_MS + " ms; the process"
                    + " said:\n" + output.get());
            String text = ((TextMessage) m).getText();
            received.add(text);
            if (text.equals("end")) {
                break;
            }
            int i = Integer.parseInt(text.substring(2));
            if (text.startsWith("p ")) {
                if (repeatAllowed && i == persistent - 1) {
                    repeatAllowed = false; // the last one acknowledged before the failure, once
                    continue;
                }
                repeatAllowed = false;
                assertEquals(persistent, i, "persistent publications once and in order; after " + tail(received));
                persistent++;
            } else {
                assertTrue(i > lastNonPersistent, "non-persistent publications at most once and in order; after "
                        + tail(received));
                lastNonPersistent = i;
            }
        }
        assertEquals(PUBLICATIONS, persistent);
        Receive.nothingMore(reading);
    }

    private static List<String> tail(List<String> received) {
        return received.subList(Math.max(0, received.size() - 5), received.size());
    }

    private static String text(MessageConsumer consumer) throws JMSException {
        Message m = consumer.receive(ARRIVAL_MS);
        assertNotNull(m, "nothing arrived within " + ARRIVAL_MS + " ms");
        return ((TextMessage) m).getText();
    }

    /** What a process has printed so far, for a failure's message. */
    private interface OutputSource {
        String get();
    }
}
