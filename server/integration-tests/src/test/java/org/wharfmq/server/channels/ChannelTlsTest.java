package org.wharfmq.server.channels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestCertificates;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.config.TlsConfig;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.security.file.SecurityFileRealm;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A channel over TLS: the sender trusts the partner's certificate through its {@code tls:} options, logs in by SCRAM,
 * and its partner connection is a Netty channel on its session's event loop with TLS in the pipeline (as a
 * {@code tcp://} one is), so the threads that deliver a stream of FAST messages write them. A partner whose
 * certificate the sender does not trust, or that is issued for another host, is refused, the channel's log line naming
 * the channel, the problem and the channel's attribute that fixes it.
 */
class ChannelTlsTest {

    @TempDir
    static Path dir;
    private static Path qm2Keys;
    private static Path qm2ForAnotherHost;
    private static Path trust;
    private static Path otherTrust;

    private final ChannelServers servers = new ChannelServers();
    private ChannelsPlugin qm1Channels;
    private ChannelsPlugin qm2Channels;
    private TestServer qm1;
    private TestServer qm2;

    @BeforeAll
    static void certificates() throws Exception {
        TestCertificates.Issued ca = TestCertificates.ca("partner CA");
        qm2Keys = TestCertificates.issue(ca, "CN=qm2", Duration.ofDays(1), "127.0.0.1", "localhost")
                .pkcs12(dir.resolve("qm2.p12"));
        qm2ForAnotherHost = TestCertificates.issue(ca, "CN=qm2", Duration.ofDays(1), "qm2.example.com")
                .pkcs12(dir.resolve("qm2-elsewhere.p12"));
        trust = TestCertificates.trustStore(dir.resolve("qm2-trust.p12"), ca.certificate());
        otherTrust = TestCertificates.trustStore(dir.resolve("other-trust.p12"),
                TestCertificates.ca("another CA").certificate());
    }

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    /**
     * QM2 with a TLS listener presenting {@code keys}, users qm1 (the channel's, with send on ORDERS) and app, and
     * receiver TO.QM2 for qm1 at nonPersistentSpeed FAST; QM1 whose sender TO.QM2 trusts {@code trustStore}.
     */
    private void start(Path keys, Path trustStore) throws Exception {
        start(keys, trustStore, "auto");
    }

    /** As {@link #start(Path, Path)}, the sender's TLS with {@code engine} (its option {@code tls.engine}). */
    private void start(Path keys, Path trustStore, String engine) throws Exception {
        SecurityFileRealm realm = servers.realm(dir, List.of("qm1", "app"),
                "  - connect: [user:qm1, user:app]\n"
                + "  - channel: [user:qm1]\n"
                + "  - queue: ORDERS\n    send: [user:qm1]\n    receive: [user:app]\n");
        TlsConfig tls = TlsConfig.builder().port(0).engine(TlsConfig.Engine.JDK).keyStore(keys)
                .keyStorePassword(TestCertificates.PASSWORD).build();
        qm2Channels = new ChannelsPlugin(new ChannelSettings(List.of(ChannelDefinition.receiver("TO.QM2", "qm1", "QM1")
                .withReceiving(ChannelDefinition.NonPersistentSpeed.FAST, 10))));
        qm2 = servers.keep(TestServer.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS").tls(tls),
                c -> WharfServer.builder(c).authenticator(realm).accessControl(realm.accessControl())
                        .plugins(qm2Channels).start()));
        qm1Channels = new ChannelsPlugin(new ChannelSettings(List.of(ChannelDefinition.sender("TO.QM2",
                qm2.server().tlsUrl(), "QM2", "qm1", "qm1-pw").withTls(Map.of("trustStore", trustStore.toString(),
                "trustStorePassword", TestCertificates.PASSWORD, "engine", engine)).withBatchSize(10).withTimes(50, 60_000)
                .withMaxRetry(500).withNonPersistentSpeed(ChannelDefinition.NonPersistentSpeed.FAST))));
        qm1 = servers.keep(TestServer.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                c -> WharfServer.builder(c).plugins(qm1Channels).start()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "openssl"})
    void aTlsChannelCarriesFastAndPersistentMessagesTheFastOnesWrittenByTheThreadsThatDeliverThem(String engine)
            throws Exception {
        start(qm2Keys, trust, engine);
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        Connection app = servers.keep(new WharfConnectionFactory(qm2.server().tcpUrl()).createConnection("app",
                "app-pw"));
        app.start();
        Session onQm2 = app.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        producer.send(onQm1.createTextMessage("first")); // the channel starts: TLS, SCRAM as qm1, CHANNEL_OPEN
        assertEquals("first", ((TextMessage) ChannelServers.next(orders)).getText());

        for (int i = 0; i < 100; i++) {
            producer.send(onQm1.createTextMessage("order " + i));
        }
        for (int i = 0; i < 100; i++) {
            assertEquals("order " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        for (int i = 0; i < 20; i++) { // one at a time, as a request/reply stream has them
            producer.send(onQm1.createTextMessage("request " + i));
            assertEquals("request " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        // persistent ones in batches of ten, exactly once and in order
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
        for (int i = 0; i < 30; i++) {
            producer.send(onQm1.createTextMessage("persistent " + i));
        }
        for (int i = 0; i < 30; i++) {
            assertEquals("persistent " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        ChannelStatus received = ChannelServers.await(qm2Channels, s -> s.messages() == 151 && s.sequence() == 30);
        ChannelStatus sent = ChannelServers.await(qm1Channels, s -> s.messages() == 151
                && Long.valueOf(0).equals(s.transmissionQueueDepth()));
        assertEquals("fast", sent.nonPersistentSpeed());
        assertTrue(received.batches() >= 3, "the persistent ones in batches of at most ten: " + received);
        // the 120 FAST messages after the first went from the threads that put them for QM2 (QM1's event loops), past
        // the transmission queue or as it delivered them, into the TLS connection: only a connection on a loop, whose
        // writes never block, lets them
        long byPutters = qm1Channels.messagesSentByTheirPutters("TO.QM2");
        assertTrue(byPutters >= 60 && byPutters <= 120, "sent by the threads that put them: " + byPutters + " of 120");
        assertTrue(qm1.server().management().preparedBranches().isEmpty());
        Receive.nothingMore(orders);
    }

    @Test
    void aPartnerWhoseCertificateTheSenderDoesNotTrustIsRefusedNamingTheChannelAndItsTrustStore() throws Exception {
        try (LogCapture senders = LogCapture.of(SenderChannel.class.getName())) {
            start(qm2Keys, otherTrust);
            String refusal = refusal(senders);
            String url = qm2.server().tlsUrl();
            String expected = "Channel TO.QM2 to " + url + " stopped (Cannot connect to Wharf at " + url + ": the server's"
                    + " TLS certificate is not trusted: it does not chain to a CA in trustStore " + otherTrust + "; add"
                    + " the CA that issued the server's certificate to the trust store (tls.trustStore of channel"
                    + " TO.QM2)); retrying in ";
            assertTrue(refusal.matches(Pattern.quote(expected) + "\\d+ ms"), refusal);
            assertNothingCrossed();
        }
    }

    @Test
    void aPartnerWhoseCertificateNamesAnotherHostIsRefusedNamingTheHost() throws Exception {
        try (LogCapture senders = LogCapture.of(SenderChannel.class.getName())) {
            start(qm2ForAnotherHost, trust);
            String refusal = refusal(senders);
            String url = qm2.server().tlsUrl();
            assertTrue(refusal.startsWith("Channel TO.QM2 to " + url + " stopped (Cannot connect to Wharf at " + url
                    + ": the server's TLS certificate is not issued for host '"), refusal);
            assertNothingCrossed();
        }
    }

    /** Sends a message on QM1 and returns the sender's first warning once it logs one. */
    private String refusal(LogCapture senders) throws Exception {
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        onQm1.createProducer(onQm1.createQueue("ORDERS")).send(onQm1.createTextMessage("not over an untrusted link"));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ChannelServers.EXPECTED_MS);
        while (true) {
            List<String> warnings = senders.messages().stream().filter(m -> m.startsWith("Channel TO.QM2")).toList();
            if (!warnings.isEmpty()) {
                return warnings.get(0);
            }
            assertTrue(System.nanoTime() < deadline, "the sender logged nothing: " + senders.lines());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // reads the log again
        }
    }

    /** The message waits on QM1's transmission queue; QM2's receiver never saw a partner. */
    private void assertNothingCrossed() {
        ChannelServers.await(qm1Channels, s -> s.state().equals("RETRYING") && Long.valueOf(1).equals(s.transmissionQueueDepth()));
        assertEquals(0, qm2.server().queueManager().queue("ORDERS").depth());
        assertEquals("INACTIVE", qm2Channels.status().get(0).state());
    }
}
