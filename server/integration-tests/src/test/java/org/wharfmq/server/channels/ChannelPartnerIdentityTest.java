package org.wharfmq.server.channels;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestCertificates;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.config.TlsConfig;
import org.wharfmq.server.queue.DeadLetters;
import org.wharfmq.server.security.AuditLog;
import org.wharfmq.server.security.file.SecurityFileRealm;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A receiver bound to its partner's identity (docs/distributed.md, "Partner identity"): QM2's receiver QM1.TO.QM2 is
 * bound to user qm1, to the TLS client certificate CN=qm1,O=Wharf Test and to queue manager QM1. Hostile partners, real
 * clients over QM2's listeners, each holding valid credentials and the channel permission: another channel user
 * (mallory) claiming to be QM1; qm1's stolen password over plain TCP, over TLS without a certificate and with
 * mallory's certificate (issued by the same trusted CA); qm1 itself claiming another queue manager's name, or one that
 * would write a line of its own into the logs. Each is
 * refused at CHANNEL_OPEN naming the channel, the binding, what came and the fix, audited, and changes nothing (the
 * sequence number it asked to reset to is not taken). The true partner's sender, with its certificate, moves messages.
 * A receiver bound to no identity takes any channel user, and the log warns once, naming who opened it and the fix;
 * the subscription set such a user sends over it in its partner queue manager's name is not taken.
 */
class ChannelPartnerIdentityTest {

    private static final String BOUND = "QM1.TO.QM2";
    private static final String UNBOUND = "QM3.TO.QM2";
    /** How long what the test waits for may take: it bounds a hang only (a loaded machine is slow). */
    private static final long ANSWER_MS = 30_000;

    @TempDir
    static Path dir;
    private static Path serverCa;
    private static Path clientCa;
    private static Path qm2Keys;
    private static Path qm1Keys;
    private static Path malloryKeys;
    /** The subjects of qm1's and mallory's certificates, as RFC 2253 writes them (as the server's messages do). */
    private static String qm1Subject;
    private static String mallorySubject;

    private final ChannelServers servers = new ChannelServers();
    /** QM2's channels and its publish/subscribe hierarchy (QM3 its child), whose status the test asks. */
    private ChannelsPlugin qm2Channels;
    private PubSubHierarchy qm2Hierarchy;
    /** The audit log, and the receivers' log (the warning of a receiver bound to no identity). */
    private LogCapture audit;
    private LogCapture receivers;

    @BeforeAll
    static void certificates() throws Exception {
        TestCertificates.Issued serverAuthority = TestCertificates.ca("server CA");
        TestCertificates.Issued clientAuthority = TestCertificates.ca("client CA");
        qm2Keys = TestCertificates.issue(serverAuthority, "CN=qm2,O=Wharf Test", Duration.ofDays(1), "127.0.0.1",
                "localhost")
                .pkcs12(dir.resolve("qm2.p12"));
        serverCa = TestCertificates.trustStore(dir.resolve("server-ca.p12"), serverAuthority.certificate());
        clientCa = clientAuthority.certificatePem(dir.resolve("client-ca.crt"));
        TestCertificates.Issued qm1 = TestCertificates.issue(clientAuthority, "CN=qm1,O=Wharf Test",
                Duration.ofDays(1));
        qm1Subject = qm1.certificate().getSubjectX500Principal().getName();
        qm1Keys = qm1.pkcs12(dir.resolve("qm1.p12"));
        TestCertificates.Issued mallory = TestCertificates.issue(clientAuthority, "CN=mallory,O=Wharf Test",
                Duration.ofDays(1));
        mallorySubject = mallory.certificate().getSubjectX500Principal().getName();
        malloryKeys = mallory.pkcs12(dir.resolve("mallory.p12"));
    }

    @AfterEach
    void stop() throws Exception {
        if (audit != null) {
            audit.close();
            receivers.close();
        }
        servers.close();
    }

    /**
     * QM2: a plain listener and a TLS one asking for client certificates (optional) from the client CA; users qm1 and
     * mallory with the channel permission and send on ORDERS, app to read it; the bound receiver (its certificate's
     * subject written otherwise than RFC 2253 does: names compare as X.500 names) and the unbound one, from QM3, its
     * child in a publish/subscribe hierarchy.
     */
    private TestServer startQm2() throws Exception {
        SecurityFileRealm realm = servers.realm(dir, List.of("qm1", "mallory", "app"),
                "  - connect: [user:qm1, user:mallory, user:app]\n"
                + "  - channel: [user:qm1, user:mallory]\n"
                + "  - queue: ORDERS\n    send: [user:qm1, user:mallory]\n    receive: [user:app]\n");
        TlsConfig tls = TlsConfig.builder().port(0).engine(TlsConfig.Engine.JDK).keyStore(qm2Keys)
                .keyStorePassword(TestCertificates.PASSWORD).clientAuth(TlsConfig.ClientAuth.OPTIONAL)
                .trustCertificates(clientCa).build();
        audit = LogCapture.of(AuditLog.NAME);
        receivers = LogCapture.of(ChannelReceivers.class.getName());
        return servers.keep(TestServer.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS").tls(tls)
                        .queue(QueueDefinition.transmissionQueue("QM3")),
                config -> {
                    qm2Channels = new ChannelsPlugin(new ChannelSettings(List.of(
                            ChannelDefinition.receiver(BOUND, "qm1", "QM1").withPartnerCertificate(
                                    qm1Subject.replace(",", ", ").replace("CN=", "cn=")),
                            ChannelDefinition.receiver(UNBOUND, null, "QM3"))));
                    qm2Hierarchy = new PubSubHierarchy(new HierarchySettings(null, List.of("QM3")), qm2Channels);
                    return WharfServer.builder(config).authenticator(realm).accessControl(realm.accessControl())
                            .plugins(qm2Hierarchy, qm2Channels).start();
                }));
    }

    /** Asks QM2 until receiver {@code channel} has no partner connected (its last one's close was handled). */
    private void awaitInactive(String channel) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ANSWER_MS);
        while (!state(channel).equals("INACTIVE")) {
            assertTrue(System.nanoTime() < deadline, channel + " still " + state(channel));
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // asks again
        }
    }

    private String state(String channel) {
        return qm2Channels.status().stream().filter(s -> s.name().equals(channel)).findFirst().orElseThrow().state();
    }

    /** The client TLS options of a partner trusting QM2, with the key and certificate {@code keys} (null: none). */
    private static Map<String, String> tls(Path keys) {
        Map<String, String> options = new HashMap<>(Map.of("trustStore", serverCa.toString(), "trustStorePassword",
                TestCertificates.PASSWORD));
        if (keys != null) {
            options.put("keyStore", keys.toString());
            options.put("keyStorePassword", TestCertificates.PASSWORD);
        }
        return options;
    }

    /** Logs in to {@code url} as {@code user} and opens {@code channel} as queue manager {@code claimed}; refused. */
    private static String refused(String url, Map<String, String> tls, String user, String channel, String claimed)
            throws Exception {
        try (CoreLink hostile = CoreLink.open(url, tls, user, user + "-pw", "hostile " + user, 0, 5_000)) {
            ClientException e = assertThrows(ClientException.class, () -> hostile.call(id -> new Frame.ChannelOpen(id,
                    channel, claimed, true, 77), ANSWER_MS)); // and a reset, which must not be taken
            return e.getMessage();
        }
    }

    private static void assertMatches(String regex, String actual) {
        assertTrue(actual.matches(regex), "expected to match\n" + regex + "\nbut was\n" + actual);
    }

    @Test
    void eachPartnerThatIsNotTheBoundOneIsRefusedNamingTheChannelTheBindingWhatCameAndTheFix() throws Exception {
        TestServer qm2 = startQm2();
        String tcp = qm2.server().tcpUrl();
        String ssl = qm2.server().tlsUrl();
        String from = " from /127\\.0\\.0\\.1:\\d+, ";

        // another channel user, with a certificate of the trusted CA, says it is QM1
        assertMatches("Receiver channel 'QM1\\.TO\\.QM2' of queue manager QM2 is bound to partner user 'qm1', not"
                + " user 'mallory'" + from + "opening it as queue manager QM1\\. Log the sender in as user 'qm1' \\(its"
                + " user and password, or a certificate mapped to that user\\); if the partner's user has changed,"
                + " bind the receiver to it \\('wharf admin alter channel QM1\\.TO\\.QM2 --partner-user USER' on"
                + " QM2\\)\\.", refused(ssl, tls(malloryKeys), "mallory", BOUND, "QM1"));

        // qm1's password, stolen: without qm1's certificate it opens nothing
        String certificateFix = "\\. Connect the sender over TLS \\(ssl://\\) with the key and certificate of '"
                + Pattern.quote(qm1Subject) + "' \\(its tls\\.keyStore\\), to a listener that asks for client certificates"
                + " \\(tls\\.clientAuth optional or required\\); if the partner's certificate has changed, bind the"
                + " receiver to its subject \\('wharf admin alter channel QM1\\.TO\\.QM2 --partner-certificate"
                + " \"SUBJECT\"' on QM2\\)\\.";
        String boundToCertificate = "Receiver channel 'QM1\\.TO\\.QM2' of queue manager QM2 is bound to the partner"
                + " certificate '" + Pattern.quote(qm1Subject) + "', but user 'qm1'" + from + "opening it as queue manager QM1,"
                + " presented ";
        assertMatches(boundToCertificate + "no client certificate \\(plain TCP\\)" + certificateFix,
                refused(tcp, Map.of(), "qm1", BOUND, "QM1"));
        assertMatches(boundToCertificate + "no client certificate" + certificateFix,
                refused(ssl, tls(null), "qm1", BOUND, "QM1"));
        assertMatches(boundToCertificate + "the client certificate '" + Pattern.quote(mallorySubject) + "'"
                + certificateFix,
                refused(ssl, tls(malloryKeys), "qm1", BOUND, "QM1"));

        // the true partner, in another queue manager's name
        assertMatches("Receiver channel 'QM1\\.TO\\.QM2' of queue manager QM2 is bound to partner queue manager QM1,"
                + " not user 'qm1'" + from + "opening it as queue manager QM3\\. Open the channel defined for queue"
                + " manager QM3, or bind this one to it \\('wharf admin alter channel QM1\\.TO\\.QM2 --partner-qmgr"
                + " QM3' on QM2\\)\\.", refused(ssl, tls(qm1Keys), "qm1", BOUND, "QM3"));

        // a name that would write a line of its own into the logs
        assertMatches("Receiver channel 'QM1\\.TO\\.QM2' of queue manager QM2 refused the queue manager name user"
                + " 'qm1' from /127\\.0\\.0\\.1:\\d+ opened it as: it holds the control character U\\+000A at"
                + " position 4 of 37\\. Give the sending queue manager a name of printable characters without '/',"
                + " at most 1024 \\(name: in its config/wharf\\.yaml\\)\\.",
                refused(ssl, tls(qm1Keys), "qm1", BOUND, "QM1\nREFUSED user 'admin' from nowhere"));
        // a name as long as a message, to be written into every line about the channel
        assertMatches("Receiver channel 'QM1\\.TO\\.QM2' of queue manager QM2 refused the queue manager name user"
                + " 'qm1' from /127\\.0\\.0\\.1:\\d+ opened it as: it is 5000 characters long, more than the 1024 a"
                + " receiver takes\\. Give .*", refused(ssl, tls(qm1Keys), "qm1", BOUND, "Q".repeat(5_000)));

        List<String> audited = audit.messages().stream().filter(l -> l.startsWith("REFUSED")).toList();
        assertEquals(7, audited.size(), String.join("\n", audit.lines()));
        assertTrue(audit.messages().stream().noneMatch(l -> l.contains("nowhere")), "the name was not logged");
        assertMatches("REFUSED user 'mallory' from /127\\.0\\.0\\.1:\\d+: CHANNEL_OPEN: Receiver"
                + " channel 'QM1\\.TO\\.QM2' of queue manager QM2 is bound to partner user 'qm1', .*", audited.get(0));

        // the true partner opens it, and finds the numbers the refused ones asked to reset untouched
        try (CoreLink qm1 = CoreLink.open(ssl, tls(qm1Keys), "qm1", "qm1-pw", "qm1", 0, 5_000)) {
            Frame.ChannelStatus opened = qm1.call(id -> new Frame.ChannelOpen(id, BOUND, "QM1", true,
                    Frame.ChannelOpen.NO_RESET), ANSWER_MS).channelStatus();
            assertEquals(0, opened.sequence(), "no refused partner's reset was taken");
        }
        assertEquals(List.of(), receivers.lines().stream().filter(l -> l.startsWith("WARNING")).toList(),
                "a receiver bound to its partner's identity is not warned of");
    }

    @Test
    void theBoundPartnersSenderMovesMessagesWithItsCertificate() throws Exception {
        TestServer qm2 = startQm2();
        TestServer qm1 = servers.start(c -> c.name("QM1").autoCreate(false)
                        .queue(QueueDefinition.transmissionQueue("QM2"))
                        .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                ChannelDefinition.sender(BOUND, qm2.server().tlsUrl(), "QM2", "qm1", "qm1-pw").withTls(tls(qm1Keys))
                        .withTimes(50, 60_000).withMaxRetry(500));
        Session session = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        session.createProducer(session.createQueue("ORDERS")).send(session.createTextMessage("from QM1"));

        Connection app = servers.keep(new WharfConnectionFactory(qm2.server().tcpUrl()).createConnection("app",
                "app-pw"));
        app.start();
        Session onQm2 = app.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Message m = ChannelServers.next(onQm2.createConsumer(onQm2.createQueue("ORDERS")));
        assertEquals("from QM1", ((TextMessage) m).getText());
    }

    @Test
    void aReceiverBoundToNoIdentityTakesAnyChannelUserAndTheLogWarnsOnce() throws Exception {
        TestServer qm2 = startQm2();
        String tcp = qm2.server().tcpUrl();
        for (String user : List.of("mallory", "qm1")) {
            try (CoreLink partner = CoreLink.open(tcp, Map.of(), user, user + "-pw", user, 0, 5_000)) {
                partner.call(id -> new Frame.ChannelOpen(id, UNBOUND, "QM3", true, Frame.ChannelOpen.NO_RESET),
                        ANSWER_MS);
            }
            awaitInactive(UNBOUND);
        }
        List<String> warnings = receivers.lines().stream().filter(l -> l.startsWith("WARNING")).toList();
        assertEquals(1, warnings.size(), String.join("\n", receivers.lines()));
        assertMatches("WARNING Receiver channel 'QM3\\.TO\\.QM2' of queue manager QM2 is"
                + " bound to no partner identity \\(partnerUser, partnerCertificate\\): user 'mallory' from"
                + " /127\\.0\\.0\\.1:\\d+ opened it as queue manager QM3, and any user with the 'channel' permission"
                + " may open it in queue manager QM3's name: .* To close it, bind the receiver to that user if it is"
                + " the partner's \\('wharf admin alter channel QM3\\.TO\\.QM2 --partner-user mallory', .*",
                warnings.get(0));
    }

    @Test
    void overAReceiverBoundToNoIdentityAChannelUsersSubscriptionSetIsNotTakenInItsPartnersName() throws Exception {
        TestServer qm2 = startQm2();
        try (CoreLink mallory = CoreLink.open(qm2.server().tcpUrl(), Map.of(), "mallory", "mallory-pw", "mallory", 0,
                5_000)) {
            mallory.call(id -> new Frame.ChannelOpen(id, UNBOUND, "QM3", false, Frame.ChannelOpen.NO_RESET),
                    ANSWER_MS);
            WireMessage set = HierarchyMessages.subscriptionSet("QM3",
                    WireDestination.queue(HierarchyMessages.CONTROL_QUEUE), List.of("orders/#"));
            set.messageId = "ID:" + UUID.randomUUID();
            set.properties.put(TransmissionHeader.QUEUE_MANAGER, "QM2");
            set.properties.put(TransmissionHeader.QUEUE, HierarchyMessages.CONTROL_QUEUE);
            ByteBuf bytes = ByteBufAllocator.DEFAULT.buffer();
            set.encode(bytes);
            mallory.write(new Frame.ChannelMessage(bytes));
            mallory.call(id -> new Frame.ChannelEndBatch(id, 1, 1), ANSWER_MS);
        }
        Session inside = servers.connect(qm2.server().vmUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Message dead = ChannelServers.next(inside.createConsumer(inside.createQueue(DeadLetters.QUEUE)));
        assertEquals("QM3", dead.getStringProperty(HierarchyMessages.QUEUE_MANAGER));
        assertEquals("Channel: the proxy subscriptions of queue manager QM3 came over a receiver channel bound to no"
                + " partner identity, which any user with the 'channel' permission could open in queue manager QM3's"
                + " name (this one was opened by user 'mallory'): bind the receiver to its partner's user"
                + " (partnerUser, and over TLS partnerCertificate; docs/distributed.md, \"Partner identity\")",
                dead.getStringProperty(DeadLetters.REASON_PROPERTY));
        assertEquals(0, qm2Hierarchy.status().partners().get(0).proxySubscriptions());
    }
}
