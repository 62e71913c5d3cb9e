package org.wharfmq.server.channels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.queue.DeadLetters;
import org.wharfmq.server.security.file.SecurityFileRealm;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A channel logs in to its partner as a user (SCRAM-SHA-256), and is that user's: who may open it, and as whom. */
class ChannelLoginTest {

    @TempDir
    Path dir;
    private final ChannelServers servers = new ChannelServers();

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    private TestServer startQm2() throws Exception {
        SecurityFileRealm realm = servers.realm(dir, List.of("qm1", "other", "app", "ops"),
                "  - connect: [user:qm1, user:other, user:app, user:ops]\n"
                + "  - channel: [user:qm1, user:other]\n"
                + "  - admin: [user:ops]\n"
                + "  - queue: ORDERS\n    send: [user:qm1]\n    receive: [user:app]\n"
                + "  - queue: PAYROLL\n    send: [user:app]\n    receive: [user:app]\n"
                + "  - queue: HERE/NEW\n    send: [user:qm1]\n");
        return servers.keep(TestServer.start(c -> c.name("QM2").autoCreate(true).queue("ORDERS").queue("PAYROLL")
                        .queue(QueueDefinition.transmissionQueue("QM9")).defaultTransmissionQueue("QM9")
                        .reference(QueueReference.remote("HERE", null, "QM2", null)), // a queue-manager alias of QM2
                config -> WharfServer.builder(config).authenticator(realm).accessControl(realm.accessControl())
                        .plugins(new ChannelsPlugin(new ChannelSettings(List.of(
                                ChannelDefinition.receiver("TO.QM2", "qm1", "QM1"))))).start()));
    }

    @Test
    void theChannelLogsInAsItsUserAndPutsWithItsAuthority() throws Exception {
        TestServer qm2 = startQm2();
        TestServer qm1 = servers.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                ChannelDefinition.sender("TO.QM2", qm2.server().tcpUrl(), "QM2", "qm1", "qm1-pw"));
        Session session = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        // a queue of QM2 that user qm1 may not send to: its message, in the same batch, goes to the dead letters
        session.createProducer(session.createQueue("queue://QM2/PAYROLL")).send(session.createTextMessage("forged"));
        session.createProducer(session.createQueue("ORDERS")).send(session.createTextMessage("from QM1"));

        Connection onQm2 = servers.keep(new WharfConnectionFactory(qm2.server().tcpUrl()).createConnection("app",
                "app-pw"));
        onQm2.start();
        Session app = onQm2.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Message m = ChannelServers.next(app.createConsumer(app.createQueue("ORDERS")));
        assertEquals("from QM1", ((TextMessage) m).getText());

        Connection ops = servers.keep(new WharfConnectionFactory(qm2.server().tcpUrl()).createConnection("ops",
                "ops-pw"));
        ops.start();
        Session admin = ops.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Message dead = ChannelServers.next(admin.createConsumer(admin.createQueue(DeadLetters.QUEUE)));
        assertEquals("forged", ((TextMessage) dead).getText());
        assertEquals("Channel: the channel's user, user 'qm1', may not send to 'PAYROLL' (no 'send' permission on it)",
                dead.getStringProperty(DeadLetters.REASON_PROPERTY), "the reason docs/distributed.md shows");
        assertEquals("PAYROLL", dead.getStringProperty(DeadLetters.QUEUE_PROPERTY));
        assertEquals(0, qm2.server().queueManager().depth("PAYROLL"), "put with the channel user's authority only");
    }

    /**
     * A partner's messages for qualified names, with the channel user's authority as any other: one for a queue of
     * another queue manager whose name begins as a temporary queue's does ({@code TMP.QM7/PAYROLL}) needs the send
     * permission on it (the temporary queues' exemption is for a temporary queue here), and one for a queue that does
     * not exist named through a queue-manager alias of QM2 ({@code HERE/NEW}) needs the create permission on it, as
     * the plain name would. Without them each goes to the dead-letter queue with the reason. (Before, the first went
     * onto QM2's default transmission queue with no permission asked, and the second created queue NEW.)
     */
    @Test
    void aQualifiedNameNeedsTheSendAndCreatePermissionsAsAnyOther() throws Exception {
        TestServer qm2 = startQm2();
        try (CoreLink qm1 = CoreLink.open(qm2.server().tcpUrl(), Map.of(), "qm1", "qm1-pw", "qm1", 0, 5_000)) {
            qm1.call(id -> new Frame.ChannelOpen(id, "TO.QM2", "QM1", false, Frame.ChannelOpen.NO_RESET), 5_000);
            qm1.write(new Frame.ChannelMessage(ChannelServers.addressed("TMP.QM7", "PAYROLL", "onward")));
            qm1.write(new Frame.ChannelMessage(ChannelServers.addressed("HERE", "NEW", "created")));
            qm1.write(new Frame.ChannelMessage(ChannelServers.addressed("QM2", "ORDERS", "from QM1")));
            qm1.call(id -> new Frame.ChannelEndBatch(id, 3, 1), ChannelServers.EXPECTED_MS);
        }
        Connection ops = servers.keep(new WharfConnectionFactory(qm2.server().tcpUrl()).createConnection("ops",
                "ops-pw"));
        ops.start();
        Session admin = ops.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer deadLetters = admin.createConsumer(admin.createQueue(DeadLetters.QUEUE));
        Message onward = ChannelServers.next(deadLetters);
        assertEquals("onward", ((TextMessage) onward).getText());
        assertEquals("Channel: the channel's user, user 'qm1', may not send to 'TMP.QM7/PAYROLL' (no 'send'"
                + " permission on it)", onward.getStringProperty(DeadLetters.REASON_PROPERTY));
        Message created = ChannelServers.next(deadLetters);
        assertEquals("created", ((TextMessage) created).getText());
        assertEquals("Channel: queue manager QM2 has no queue 'NEW', and the channel's user, user 'qm1', may not"
                + " create it (no 'create' permission)", created.getStringProperty(DeadLetters.REASON_PROPERTY));
        assertEquals("HERE/NEW", created.getStringProperty(DeadLetters.QUEUE_PROPERTY));
        assertEquals(0, qm2.server().management().queue("QM9").depth(), "put on the default transmission queue");
        assertTrue(!qm2.server().management().queueExists("NEW"), "created by use");
        assertEquals(1, qm2.server().queueManager().depth("ORDERS"));
    }

    @Test
    void aUserWithoutTheChannelPermissionOrNotTheReceiversPartnerIsRefusedAtOpen() throws Exception {
        TestServer qm2 = startQm2();
        try (CoreLink app = CoreLink.open(qm2.server().tcpUrl(), Map.of(), "app", "app-pw", "hostile", 0, 5_000)) {
            ClientException refused = assertThrows(ClientException.class,
                    () -> app.call(id -> new Frame.ChannelOpen(id, "TO.QM2", "QM1", true, 77), 5_000)); // and a reset
            assertTrue(refused.getMessage().startsWith("Channel 'TO.QM2' from queue manager QM1 is refused: only a"
                    + " user with the 'channel' permission runs a channel (docs/distributed.md). User 'app' may not"),
                    refused.getMessage());
        }
        try (CoreLink other = CoreLink.open(qm2.server().tcpUrl(), Map.of(), "other", "other-pw", "other", 0, 5_000)) {
            ClientException refused = assertThrows(ClientException.class,
                    () -> other.call(id -> new Frame.ChannelOpen(id, "TO.QM2", "QM1", true, 77), 5_000));
            assertTrue(refused.getMessage().matches("Receiver channel 'TO.QM2' of queue manager QM2 is bound to"
                    + " partner user 'qm1', not user 'other' from /127\\.0\\.0\\.1:\\d+, opening it as queue manager"
                    + " QM1\\. Log the sender in as user 'qm1' .*"), refused.getMessage());
        }
        try (CoreLink qm1 = CoreLink.open(qm2.server().tcpUrl(), Map.of(), "qm1", "qm1-pw", "qm1", 0, 5_000)) {
            ClientException refused = assertThrows(ClientException.class,
                    () -> qm1.call(id -> new Frame.ChannelOpen(id, "TO.QM9", "QM1", true,
                            Frame.ChannelOpen.NO_RESET), 5_000));
            assertTrue(refused.getMessage().startsWith("Queue manager QM2 has no receiver channel 'TO.QM9'"),
                    refused.getMessage());
            ClientException negative = assertThrows(ClientException.class,
                    () -> qm1.call(id -> new Frame.ChannelOpen(id, "TO.QM2", "QM1", true, -5), 5_000));
            assertEquals("Receiver channel 'TO.QM2' of queue manager QM2 refused the sequence number -5 its sender was"
                    + " reset to: a sequence number is 0 or more. Reset the sender again ('wharf admin reset channel"
                    + " TO.QM2 --sequence N' on queue manager QM1).", negative.getMessage());
            Frame.ChannelStatus opened = qm1.call(id -> new Frame.ChannelOpen(id, "TO.QM2", "QM1", true,
                    Frame.ChannelOpen.NO_RESET), 5_000).channelStatus();
            assertEquals(0, opened.sequence(), "the refused partners' resets changed nothing");
            assertEquals(0, opened.lastBatchId());
            ClientException replayed = assertThrows(ClientException.class,
                    () -> qm1.call(id -> new Frame.ChannelEndBatch(id, 5, 7), 5_000)); // not the next batch
            assertEquals("Queue manager QM2 did not commit batch 7 of channel 'TO.QM2': Channel 'TO.QM2' sent batch 7"
                    + " ending at sequence number 5, but its receiver expects batch 1 ending at 0: the sender's"
                    + " sequence is out of step. Start the channel again (it takes the receiver's).",
                    replayed.getMessage());
        }
    }
}
