package org.wharfmq.server.it;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.cli.FlowCommandAccess;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Permission;
import org.wharfmq.server.security.PermissionRules;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.InvalidDestinationException;
import javax.jms.JMSSecurityException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Transmission queues, remote queues, queue aliases and queue-manager aliases defined at run time with
 * {@code wharf admin}, shown, refused when wrong, kept across a restart with the messages waiting for a channel, and
 * deleted; and a transmission queue's messages only for a user with the channel permission.
 */
class DistributedDefinitionsTest {

    private TestServer testServer;

    @AfterEach
    void stop() {
        if (testServer != null) {
            testServer.close();
        }
    }

    private FlowCommandAccess.Result admin(String... args) {
        List<String> all = new ArrayList<>(List.of("admin", "--url", testServer.server().tcpUrl()));
        all.addAll(List.of(args));
        return FlowCommandAccess.run(all.toArray(String[]::new));
    }

    private static String ok(FlowCommandAccess.Result result) {
        assertEquals(0, result.status(), result.err() + result.out());
        return result.out();
    }

    private static String failed(FlowCommandAccess.Result result) {
        assertEquals(1, result.status(), "should have been refused: " + result.out());
        return result.err().substring("wharf: ".length()).strip();
    }

    @Test
    void definitionsMadeAtRunTimeResolveSurviveARestartWithTheirMessagesAndAreDeleted() throws Exception {
        testServer = TestServer.start(c -> c.name("QM1").autoCreate(false),
                config -> WharfServer.start(config, new AdminPlugin()));
        assertTrue(ok(admin("display", "server")).startsWith("Queue manager QM1 (Wharf "));
        assertTrue(ok(admin("define", "queue", "QM2.XMIT", "--usage", "transmission")).startsWith(
                "Defined queue QM2.XMIT: "));
        assertEquals("Defined remote ORDERS.REMOTE: remote queue ORDERS on QM2 through QM2.XMIT.\n",
                ok(admin("define", "remote", "ORDERS.REMOTE", "--remote-queue", "ORDERS", "--remote-qmgr", "QM2",
                        "--xmitq", "QM2.XMIT")));
        assertEquals("Defined alias ORDERS.ALIAS: queue alias for ORDERS.REMOTE.\n",
                ok(admin("define", "alias", "ORDERS.ALIAS", "--target", "ORDERS.REMOTE")));
        assertEquals("Defined remote QM5: queue-manager alias for QM2 through QM2.XMIT.\n",
                ok(admin("define", "remote", "QM5", "--remote-qmgr", "QM2", "--xmitq", "QM2.XMIT")));

        assertEquals("Queue 'BROKEN' (remote): a remote queue needs the queue manager it is on (remoteQueueManager:"
                + " QM2).", failed(admin("define", "remote", "BROKEN", "--remote-queue", "ORDERS")));
        assertEquals("'ORDERS.REMOTE' is defined already (remote queue ORDERS on QM2 through QM2.XMIT): delete it"
                + " first ('delete remote ORDERS.REMOTE').", failed(admin("define", "alias", "ORDERS.REMOTE",
                "--target", "ELSEWHERE")));
        assertEquals("'ORDERS.REMOTE' is a remote queue ORDERS on QM2 through QM2.XMIT, not of type alias: delete it"
                + " with 'delete remote ORDERS.REMOTE'.", failed(admin("delete", "alias", "ORDERS.REMOTE")));
        assertEquals("Queue 'QM2.XMIT' exists already (defined at run time): an alias or remote definition needs a name"
                + " no queue has.", failed(admin("define", "alias", "QM2.XMIT", "--target", "ORDERS.ALIAS")));

        assertTrue(failed(admin("define", "queue", "QM2/ORDERS")).startsWith("Queue 'QM2/ORDERS': a '/' separates a"
                + " queue manager's name from a queue's"));
        send("ORDERS.ALIAS", "queue://QM5/PAY");
        assertEquals(2, testServer.server().queueManager().depth("QM2.XMIT"));

        testServer.restart();
        String names = ok(admin("display", "names"));
        assertTrue(names.contains("ORDERS.ALIAS") && names.contains("ORDERS.REMOTE") && names.contains("qmgr alias"),
                names);
        try (Connection connection = connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer waiting = session.createConsumer(session.createQueue("QM2.XMIT"));
            Message first = Receive.next(waiting);
            assertEquals("QM2", first.getStringProperty(TransmissionHeader.QUEUE_MANAGER));
            assertEquals("ORDERS", first.getStringProperty(TransmissionHeader.QUEUE));
            assertEquals("PAY", Receive.next(waiting).getStringProperty(TransmissionHeader.QUEUE));
            Receive.nothingMore(waiting);
        }
        send("ORDERS.ALIAS"); // resolves as before the restart
        assertEquals(1, testServer.server().queueManager().depth("QM2.XMIT"));

        assertEquals("Deleted alias ORDERS.ALIAS: queue alias for ORDERS.REMOTE.\n",
                ok(admin("delete", "alias", "ORDERS.ALIAS")));
        ok(admin("delete", "remote", "ORDERS.REMOTE"));
        ok(admin("delete", "remote", "QM5"));
        assertEquals("No queue aliases or remote definitions.\n", ok(admin("display", "names")));
        testServer.restart();
        assertEquals("No queue aliases or remote definitions.\n", ok(admin("display", "names")));
        InvalidDestinationException gone = assertThrows(InvalidDestinationException.class, () -> send("ORDERS.ALIAS"));
        assertTrue(gone.getMessage().startsWith("Queue 'ORDERS.ALIAS' does not exist"), gone.getMessage());
    }

    @Test
    void aTransmissionQueueIsReadOnlyWithTheChannelPermission() throws Exception {
        PermissionRules.Builder rules = PermissionRules.builder().connect("anyone")
                .queue("**", Permission.SEND, "anyone").queue("**", Permission.RECEIVE, "anyone")
                .queue("**", Permission.BROWSE, "anyone");
        AccessControl apps = new AccessControl(rules.build(), "security file test.yaml");
        testServer = TestServer.start(c -> c.name("QM1").queue("OTHER").queue(QueueDefinition.transmissionQueue("QM2"))
                        .reference(QueueReference.remote("ORDERS.REMOTE", "ORDERS", "QM2", null))
                        .reference(QueueReference.alias("SNEAKY", "QM2")),
                config -> WharfServer.builder(config).accessControl(apps).start());
        send("ORDERS.REMOTE");
        try (Connection connection = connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            JMSSecurityException refused = assertThrows(JMSSecurityException.class,
                    () -> session.createConsumer(session.createQueue("QM2")));
            assertTrue(refused.getMessage().startsWith("Queue 'QM2' is a transmission queue: its messages are for"
                    + " another queue manager and only a channel takes them (the 'channel' permission;"
                    + " docs/distributed.md). An anonymous client may not run a channel of the queue manager: no"
                    + " 'channel' permission is granted to anonymous clients"), refused.getMessage());
            assertThrows(JMSSecurityException.class, () -> session.createBrowser(session.createQueue("QM2")));
            JMSSecurityException throughAlias = assertThrows(JMSSecurityException.class,
                    () -> session.createConsumer(session.createQueue("SNEAKY")));
            assertTrue(throughAlias.getMessage().startsWith("Queue 'QM2' is a transmission queue"),
                    throughAlias.getMessage());
            session.createConsumer(session.createQueue("OTHER")).close(); // the queue rules still apply elsewhere
        }
        assertEquals(1, testServer.server().queueManager().depth("QM2"));

        testServer.close(); // a queue manager whose rules grant the channel permission: the message is taken

        AccessControl channels = new AccessControl(rules.channel("anyone").build(), "security file test.yaml");
        testServer = TestServer.start(c -> c.name("QM1").queue(QueueDefinition.transmissionQueue("QM2")),
                config -> WharfServer.builder(config).accessControl(channels).start());
        send("queue://QM2/ORDERS");
        try (Connection connection = connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            connection.start();
            Message taken = Receive.next(session.createConsumer(session.createQueue("QM2")));
            assertEquals("ORDERS", taken.getStringProperty(TransmissionHeader.QUEUE));
        }
    }

    /**
     * A name qualified by another queue manager needs send on the transmission queue it goes through, which a
     * connection asks once for a stream of messages: rules reloaded without that grant refuse the next message of the
     * same producer, naming the transmission queue.
     */
    @Test
    void aQualifiedNameIsRefusedOnceTheRulesNoLongerGrantSendOnItsTransmissionQueue() throws Exception {
        AccessControl rules = new AccessControl(PermissionRules.builder().connect("anyone")
                .queue("QM2/ORDERS", Permission.SEND, "anyone").queue("QM2", Permission.SEND, "anyone").build(),
                "security file test.yaml");
        testServer = TestServer.start(c -> c.name("QM1").queue(QueueDefinition.transmissionQueue("QM2")),
                config -> WharfServer.builder(config).accessControl(rules).start());
        try (Connection connection = connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("queue://QM2/ORDERS"));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT); // answered: a refusal is the send's
            producer.send(session.createTextMessage("one"));
            producer.send(session.createTextMessage("two"));
            rules.replace(PermissionRules.builder().connect("anyone").queue("QM2/ORDERS", Permission.SEND, "anyone")
                    .build(), "security file test.yaml (reloaded)");
            JMSSecurityException refused = assertThrows(JMSSecurityException.class,
                    () -> producer.send(session.createTextMessage("three")));
            assertTrue(refused.getMessage().startsWith("An anonymous client may not send to queue 'QM2': no 'send'"
                    + " permission"), refused.getMessage());
        }
        assertEquals(2, testServer.server().queueManager().depth("QM2"));
    }

    /**
     * A name qualified by a queue-manager alias of this queue manager ({@code HERE/NEW}, HERE leading to QM1) names
     * queue NEW here, which a put creates by use only as the user may create it: the send permission on the name does
     * not do. (Before, the alias's resolution created it for anyone, past the create permission and the user's quota.)
     */
    @Test
    void aQueueCreatedByUseThroughAQueueManagerAliasOfThisOneNeedsTheCreatePermission() throws Exception {
        AccessControl rules = new AccessControl(PermissionRules.builder().connect("anyone")
                .queue("**", Permission.SEND, "anyone").build(), "security file test.yaml");
        testServer = TestServer.start(c -> c.name("QM1").autoCreate(true)
                        .reference(QueueReference.remote("HERE", null, "QM1", null)),
                config -> WharfServer.builder(config).accessControl(rules).start());
        try (Connection connection = connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            // the producer's creation finds (or creates) the queue its name leads to, as the send would
            JMSSecurityException refused = assertThrows(JMSSecurityException.class, () -> session.createProducer(
                    session.createQueue("queue://HERE/NEW")).send(session.createTextMessage("one")));
            assertTrue(refused.getMessage().startsWith("An anonymous client may not create queue 'NEW': no 'create'"
                    + " permission"), refused.getMessage());
        }
        assertTrue(!testServer.server().management().queueExists("NEW"), "created by use");
    }

    /**
     * The publish/subscribe hierarchy's status asks which transmission queue leads to each partner
     * ({@code transmissionQueueTo}), probing the route of {@code NAME/Q}: for this queue manager's own name or a
     * queue-manager alias of it, that probe resolved to queue Q here, and created it by use (for anyone) with
     * autoCreate on. Now a name that leads here has no transmission queue, and nothing is created.
     */
    @Test
    void askingForTheTransmissionQueueToThisQueueManagerCreatesNoQueue() throws Exception {
        testServer = TestServer.start(c -> c.name("QM1").autoCreate(true)
                .reference(QueueReference.remote("HERE", null, "QM1", null)));
        assertEquals(null, testServer.server().management().transmissionQueueTo("HERE"));
        assertEquals(null, testServer.server().management().transmissionQueueTo("QM1"));
        assertTrue(!testServer.server().management().queueExists("Q"), "queue Q created by the probe");
    }

    private Connection connect() throws Exception {
        Connection connection = new WharfConnectionFactory(testServer.server().tcpUrl()).createConnection();
        connection.start();
        return connection;
    }

    private void send(String... queues) throws Exception {
        try (Connection connection = connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            for (String queue : queues) {
                MessageProducer producer = session.createProducer(session.createQueue(queue));
                producer.setDeliveryMode(DeliveryMode.PERSISTENT);
                producer.send(session.createTextMessage("for " + queue));
            }
        }
    }
}
