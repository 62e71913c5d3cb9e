package org.wharfmq.server.channels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.queue.DeadLetters;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.AuditLog;
import org.wharfmq.server.security.Permission;
import org.wharfmq.server.security.PermissionRules;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two queue managers in one JVM joined by channels: QM1's sender TO.QM2 moves its transmission queue QM2 to QM2's
 * receiver of that name, and (where a test needs replies) QM2's sender TO.QM1 the other way, through the real JMS
 * client at both ends.
 */
class ChannelTest {

    private static final long EXPECTED_MS = ChannelServers.EXPECTED_MS;

    private final ChannelServers servers = new ChannelServers();
    private TestServer qm1;
    private TestServer qm2;
    private ChannelsPlugin qm1Channels;

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    /** QM2 with ORDERS and a receiver TO.QM2; its access control {@code control} (null: everything allowed). */
    private void startQm2(AccessControl control, AtomicReference<String> qm1Url) throws Exception {
        qm2 = TestServer.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS").queue("PAYROLL")
                .queue(QueueDefinition.transmissionQueue("QM1")), config -> {
            List<ChannelDefinition> channels = new ArrayList<>();
            channels.add(ChannelDefinition.receiver("TO.QM2", null, "QM1") // non-persistent in the batch's order
                    .withReceiving(ChannelDefinition.NonPersistentSpeed.NORMAL, 10));
            if (qm1Url.get() != null) {
                channels.add(ChannelDefinition.sender("TO.QM1", qm1Url.get(), "QM1", null, null).withTimes(50, 60_000));
            }
            WharfServer.Starter starter = WharfServer.builder(config).plugins(new ChannelsPlugin(
                    new ChannelSettings(channels)));
            return (control == null ? starter : starter.accessControl(control)).start();
        });
        servers.keep(qm2);
    }

    private void startQm1(int batchSize) throws Exception {
        startQm1(batchSize, 0);
    }

    private void startQm1(int batchSize, int port) throws Exception {
        String qm2Url = qm2.server().tcpUrl();
        qm1 = TestServer.start(c -> c.name("QM1").port(port).autoCreate(false).queue("REPLIES")
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null))
                .reference(QueueReference.remote("PAYROLL", "PAYROLL", "QM2", null))
                .reference(QueueReference.remote("QM2.ORDERS", "ORDERS", "QM2", null)), config -> {
            qm1Channels = new ChannelsPlugin(new ChannelSettings(List.of(
                    ChannelDefinition.sender("TO.QM2", qm2Url, "QM2", null, null).withBatchSize(batchSize)
                            .withTimes(50, 60_000),
                    ChannelDefinition.receiver("TO.QM1", null, "QM2"))));
            return WharfServer.builder(config).plugins(qm1Channels).start();
        });
        servers.keep(qm1);
    }

    private Connection connect(String url) throws Exception {
        return servers.connect(url);
    }

    @Test
    void persistentAndNonPersistentMessagesCrossInOrderInBatches() throws Exception {
        startQm2(null, new AtomicReference<>());
        startQm1(7);
        Session onQm1 = connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("QM2.ORDERS")); // ORDERS on QM2
        for (int i = 0; i < 40; i++) {
            producer.send(onQm1.createTextMessage("order " + i),
                    i % 2 == 0 ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT, 4, 0);
        }

        Session onQm2 = connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        for (int i = 0; i < 40; i++) {
            TextMessage m = (TextMessage) next(orders);
            assertEquals("order " + i, m.getText());
            assertEquals(i % 2 == 0 ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT, m.getJMSDeliveryMode());
            assertEquals("QM1", m.getStringProperty(TransmissionHeader.SOURCE_QUEUE_MANAGER));
            assertEquals("ORDERS", ((Queue) m.getJMSDestination()).getQueueName());
        }
        Receive.nothingMore(orders);
    }

    /**
     * A batch ends at batchBytes, whatever batchSize allows: ten persistent messages of about 1.1 KB, committed at
     * once, cross in five batches or more under a limit of 2,000 bytes (two messages reach it). With nothing more to
     * send the sender disconnects after its disconnect interval (the receiver goes INACTIVE), and the next message
     * starts it again.
     */
    @Test
    void aBatchEndsAtItsBytesAndAnIdleSenderDisconnectsAndStartsAgainForTheNextMessage() throws Exception {
        ChannelsPlugin[] receiving = new ChannelsPlugin[1];
        qm2 = servers.keep(AdminCli.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS"), receiving,
                ChannelDefinition.receiver("TO.QM2", null, "QM1")));
        ChannelsPlugin[] sending = new ChannelsPlugin[1];
        qm1 = servers.keep(AdminCli.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)), sending,
                ChannelDefinition.sender("TO.QM2", qm2.server().tcpUrl(), "QM2", null, null).withTimes(50, 300)
                        .with(ChannelConfiguration.BATCH_BYTES, 2_000L)));
        Session onQm1 = connect(qm1.server().tcpUrl()).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        String body = "x".repeat(1_000);
        for (int i = 0; i < 10; i++) {
            producer.send(onQm1.createTextMessage(i + body), DeliveryMode.PERSISTENT, 4, 0);
        }
        onQm1.commit();
        Session onQm2 = connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        for (int i = 0; i < 10; i++) {
            assertEquals(i + body, ((TextMessage) next(orders)).getText());
        }
        ChannelStatus sent = ChannelServers.await(sending[0], s -> s.messages() == 10);
        assertTrue(sent.batches() >= 5, "at most two messages of 1.1 KB in a batch of 2,000 bytes: " + sent);

        ChannelServers.await(receiving[0], s -> s.state().equals("INACTIVE")); // the sender disconnected, idle
        producer.send(onQm1.createTextMessage("after the idle"), DeliveryMode.PERSISTENT, 4, 0);
        onQm1.commit();
        assertEquals("after the idle", ((TextMessage) next(orders)).getText());
        Receive.nothingMore(orders);
    }

    /**
     * batchIntervalMillis: once the sender has taken a message (it runs, gathering its batch), the batch waits up to
     * the interval for more. With an interval far longer than the test, the four messages put after the first join
     * it, and the five cross as one batch (batchSize 5 ends it); the receiver's own counters say so.
     */
    @Test
    void aBatchWaitsUpToItsIntervalForMoreMessages() throws Exception {
        ChannelsPlugin[] sending = new ChannelsPlugin[1];
        ChannelsPlugin[] receiving = new ChannelsPlugin[1];
        Session onQm1 = startWithBatchInterval(600_000, sending, receiving);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));

        producer.send(onQm1.createTextMessage("order 0"), DeliveryMode.PERSISTENT, 4, 0);
        ChannelServers.await(sending[0], s -> s.state().equals("RUNNING")); // it took the first: its batch gathers
        for (int i = 1; i < 5; i++) {
            producer.send(onQm1.createTextMessage("order " + i), DeliveryMode.PERSISTENT, 4, 0);
        }

        ChannelStatus received = ChannelServers.await(receiving[0], s -> s.messages() == 5);
        assertEquals(1, received.batches(), "the first message waited for the four after it: " + received);
    }

    /**
     * batchIntervalMillis 0 (the default): a batch ends once the transmission queue is empty, so the first message
     * crosses alone, before anything else is put, and those put after it come in other batches.
     */
    @Test
    void aBatchWithoutAnIntervalEndsOnceItsTransmissionQueueIsEmpty() throws Exception {
        ChannelsPlugin[] sending = new ChannelsPlugin[1];
        ChannelsPlugin[] receiving = new ChannelsPlugin[1];
        Session onQm1 = startWithBatchInterval(0, sending, receiving);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));

        producer.send(onQm1.createTextMessage("order 0"), DeliveryMode.PERSISTENT, 4, 0);
        ChannelStatus first = ChannelServers.await(receiving[0], s -> s.messages() == 1); // it waited for nothing
        assertEquals(1, first.batches(), first.toString());
        for (int i = 1; i < 5; i++) {
            producer.send(onQm1.createTextMessage("order " + i), DeliveryMode.PERSISTENT, 4, 0);
        }

        ChannelStatus received = ChannelServers.await(receiving[0], s -> s.messages() == 5);
        assertTrue(received.batches() >= 2, "the first message crossed alone: " + received);
    }

    /**
     * QM2 with ORDERS and a receiver TO.QM2, QM1 with its sender (batchSize 5, {@code intervalMillis}) waiting on its
     * empty transmission queue; a session on QM1, whose ORDERS is the remote definition of QM2's.
     */
    private Session startWithBatchInterval(long intervalMillis, ChannelsPlugin[] sending,
                                                   ChannelsPlugin[] receiving) throws Exception {
        qm2 = servers.keep(AdminCli.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS"), receiving,
                ChannelDefinition.receiver("TO.QM2", null, "QM1")));
        qm1 = servers.keep(AdminCli.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)), sending,
                ChannelDefinition.sender("TO.QM2", qm2.server().tcpUrl(), "QM2", null, null).withTimes(50, 600_000)
                        .withBatchSize(5).with(ChannelConfiguration.BATCH_INTERVAL_MILLIS, intervalMillis)));
        ChannelServers.await(sending[0], s -> s.state().equals("WAITING")); // for its first message
        return connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
    }

    @Test
    void aChannelsBatchesAreAuditedAsTheQueueManagersOwnWorkAtDebugNotInfo() throws Exception {
        startQm2(null, new AtomicReference<>());
        startQm1(5);
        java.util.logging.Logger auditLogger = java.util.logging.Logger.getLogger(AuditLog.NAME);
        java.util.logging.Level level = auditLogger.getLevel();
        auditLogger.setLevel(java.util.logging.Level.FINE);
        try (LogCapture audit = LogCapture.of(AuditLog.NAME)) {
            Session onQm1 = connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = onQm1.createProducer(onQm1.createQueue("QM2.ORDERS"));
            for (int i = 0; i < 3; i++) {
                producer.send(onQm1.createTextMessage("order " + i)); // persistent: in batches, each an XA branch
            }
            awaitSent(qm1Channels, 3); // each batch's removal committed: its audit line written

            List<String> lines = audit.lines();
            assertTrue(lines.stream().anyMatch(l -> l.matches("FINE XA the queue manager \\(in-process\\) from "
                    + "in-process: Xid\\[.*] committed")), "the sender's removal of a batch: " + lines);
            assertTrue(lines.stream().anyMatch(l -> l.matches("FINE the queue manager \\(in-process\\) from .* sent a "
                    + "message to SYSTEM\\.CHANNEL\\.SYNCQ")), "the receiver's sync record of a batch: " + lines);
            assertTrue(lines.stream().noneMatch(l -> l.startsWith("INFO ")), "no INFO line per batch: " + lines);
        } finally {
            auditLogger.setLevel(level);
        }
    }

    @Test
    void aRequesterOnQm1GetsTheReplyOfAResponderOnQm2OnItsTemporaryQueue() throws Exception {
        int qm1Port = FreePorts.one();
        startQm2(null, new AtomicReference<>("tcp://127.0.0.1:" + qm1Port)); // its sender back to QM1
        startQm1(50, qm1Port);

        Session requester = connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue replyTo = requester.createTemporaryQueue();
        TextMessage request = requester.createTextMessage("how many?");
        request.setJMSReplyTo(replyTo);
        requester.createProducer(requester.createQueue("ORDERS")).send(request);

        Session responder = connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Message received = next(responder.createConsumer(responder.createQueue("ORDERS")));
        assertEquals("QM1/" + replyTo.getQueueName(), ((Queue) received.getJMSReplyTo()).getQueueName());
        TextMessage reply = responder.createTextMessage("42");
        reply.setJMSCorrelationID(received.getJMSMessageID());
        responder.createProducer(null).send(received.getJMSReplyTo(), reply); // no code of its own for QM1

        TextMessage answer = (TextMessage) next(requester.createConsumer(replyTo));
        assertEquals("42", answer.getText());
        assertEquals(request.getJMSMessageID(), answer.getJMSCorrelationID());
        assertEquals("QM2", answer.getStringProperty(TransmissionHeader.SOURCE_QUEUE_MANAGER));
    }

    @Test
    void aBatchTheReceiverCommittedButTheSenderDidNotRemoveIsNotPutTwice() throws Exception {
        startQm2(null, new AtomicReference<>());
        startQm1(5);
        AtomicBoolean crashed = new AtomicBoolean();
        AtomicLong firstBatch = new AtomicLong(); // its messages: up to 5, fewer when the queue was slower than the channel
        ChannelsPlugin firstChannels = qm1Channels;
        qm1Channels.hooks("TO.QM2", () -> { }, () -> {
            if (crashed.compareAndSet(false, true)) {
                firstBatch.set(sequence(firstChannels));
                throw new IllegalStateException("the test's crash between the receiver's commit and the removal");
            }
        });
        Session onQm1 = connect(qm1.server().tcpUrl()).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        for (int i = 0; i < 12; i++) {
            producer.send(onQm1.createTextMessage("order " + i));
        }
        onQm1.commit(); // twelve in batches of up to 5: the commit's messages may reach the queue one by one

        Session onQm2 = connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        for (int i = 0; i < 12; i++) {
            assertEquals("order " + i, ((TextMessage) next(orders)).getText());
        }
        assertTrue(crashed.get());
        Receive.nothingMore(orders); // had the batch in doubt been sent again, "order 0" would have followed "order 4"
        awaitSent(qm1Channels, 12 - firstBatch.get()); // the batch in doubt was removed as the receiver's, not sent
        assertEquals(0, qm1.server().queueManager().queue("QM2").depth());
        assertTrue(qm1.server().management().preparedBranches().isEmpty());
    }

    @Test
    void aBatchInDoubtThatTheReceiverNeverGotIsSentAgainFirst() throws Exception {
        startQm2(null, new AtomicReference<>());
        startQm1(5);
        AtomicBoolean crashed = new AtomicBoolean();
        qm1Channels.hooks("TO.QM2", () -> {
            if (crashed.compareAndSet(false, true)) {
                throw new IllegalStateException("the test's crash between the prepare and the end of the batch");
            }
        }, () -> { });
        Session onQm1 = connect(qm1.server().tcpUrl()).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        for (int i = 0; i < 12; i++) {
            producer.send(onQm1.createTextMessage("order " + i));
        }
        onQm1.commit();

        Session onQm2 = connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        for (int i = 0; i < 12; i++) {
            assertEquals("order " + i, ((TextMessage) next(orders)).getText()); // rolled back, then first again
        }
        assertTrue(crashed.get());
        Receive.nothingMore(orders);
        awaitSent(qm1Channels, 12);
        assertEquals(0, qm1.server().queueManager().queue("QM2").depth());
    }

    @Test
    void aBatchInDoubtWhenTheSendingQueueManagerStopsIsResolvedWhenItStartsAgain() throws Exception {
        startQm2(null, new AtomicReference<>());
        startQm1(5);
        CountDownLatch inDoubt = new CountDownLatch(1);
        AtomicLong firstBatch = new AtomicLong(); // its messages: up to 5, fewer when the queue was slower than the channel
        ChannelsPlugin firstChannels = qm1Channels;
        qm1Channels.hooks("TO.QM2", () -> { }, () -> {
            firstBatch.set(sequence(firstChannels));
            inDoubt.countDown();
            try {
                new CountDownLatch(1).await(); // until the queue manager stops (and interrupts the channel)
            } catch (InterruptedException stopped) {
                throw new IllegalStateException("stopped between the receiver's commit and the removal");
            }
        });
        Session onQm1 = connect(qm1.server().vmUrl()).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        for (int i = 0; i < 8; i++) {
            producer.send(onQm1.createTextMessage("order " + i));
        }
        onQm1.commit();
        assertTrue(inDoubt.await(EXPECTED_MS, TimeUnit.MILLISECONDS));
        qm1.stop(); // its journal holds the first batch's removal prepared: in doubt
        qm1.restart(); // the channel starts at once to resolve it, and sends the rest

        Session onQm2 = connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        for (int i = 0; i < 8; i++) {
            assertEquals("order " + i, ((TextMessage) next(orders)).getText());
        }
        Receive.nothingMore(orders);
        awaitSent(qm1Channels, 8 - firstBatch.get()); // the batch in doubt is not sent again, only the rest
        assertEquals(0, qm1.server().queueManager().queue("QM2").depth());
        assertTrue(qm1.server().management().preparedBranches().isEmpty());
    }

    @Test
    void aBatchInDoubtRolledBackAfterARestartStaysRolledBackAcrossTheNext() throws Exception {
        startQm2(null, new AtomicReference<>());
        startQm1(5);
        CountDownLatch prepared = new CountDownLatch(1);
        qm1Channels.hooks("TO.QM2", () -> {
            prepared.countDown();
            try {
                new CountDownLatch(1).await(); // until the queue manager stops (and interrupts the channel)
            } catch (InterruptedException stopped) {
                throw new IllegalStateException("stopped between the prepare and the end of the batch");
            }
        }, () -> { });
        Session onQm1 = connect(qm1.server().vmUrl()).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        for (int i = 0; i < 8; i++) {
            producer.send(onQm1.createTextMessage("order " + i));
        }
        onQm1.commit();
        assertTrue(prepared.await(EXPECTED_MS, TimeUnit.MILLISECONDS));
        qm1.stop(); // its journal holds the first batch's removal prepared, a batch the receiver never got
        qm1.restart(); // restored in doubt, rolled back (the receiver does not have it) and sent again

        Session onQm2 = connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        for (int i = 0; i < 8; i++) {
            assertEquals("order " + i, ((TextMessage) next(orders)).getText());
        }
        Receive.nothingMore(orders);
        awaitSent(qm1Channels, 8);
        assertEquals(List.of(), qm1.server().management().preparedBranches());

        // the rollback is in the journal: the next start (QM2 away, so that nothing is resolved with it) has no batch
        // in doubt, where a rollback left unrecorded brought the branch back, in doubt under a batch id the channel
        // has since used again for other messages
        qm2.stop();
        qm1.restart();
        assertEquals(List.of(), qm1.server().management().preparedBranches(), "a batch rolled back came back");
        assertEquals(0, qm1.server().queueManager().queue("QM2").depth());
    }

    /** The sequence number of {@code channels}' sender, as it last knew it (in an afterConfirm hook: the batch's). */
    private static long sequence(ChannelsPlugin channels) {
        return channels.status().stream().filter(c -> c.type().equals("sender")).findFirst().orElseThrow().sequence();
    }

    /** Waits until the sender TO.QM2 reports {@code count} messages confirmed by the receiver. */
    private static void awaitSent(ChannelsPlugin channels, long count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EXPECTED_MS);
        while (channels.messagesSent("TO.QM2") < count && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000); // polls the count the channel reports
        }
        assertEquals(count, channels.messagesSent("TO.QM2"));
    }

    @Test
    void aPartnerWithoutTheChannelPermissionIsRefusedAtOpen() throws Exception {
        startQm2(new AccessControl(PermissionRules.builder().connect("anyone")
                .queue("ORDERS", Permission.SEND, "anyone").build(), "security file test.yaml"),
                new AtomicReference<>());
        try (CoreLink link = CoreLink.open(qm2.server().tcpUrl(), Map.of(), null, null, "hostile", 0, 5_000)) {
            ClientException refused = assertThrows(ClientException.class,
                    () -> link.call(id -> new Frame.ChannelOpen(id, "TO.QM2", "QM1", true,
                            Frame.ChannelOpen.NO_RESET), 5_000));
            assertTrue(refused.getMessage().startsWith("Channel 'TO.QM2' from queue manager QM1 is refused: only a"
                    + " user with the 'channel' permission runs a channel"), refused.getMessage());
        }
    }

    @Test
    void aMessageForAQueueTheChannelUserMayNotSendToGoesToTheDeadLetterQueueWithTheReason() throws Exception {
        startQm2(new AccessControl(PermissionRules.builder().connect("anyone").channel("anyone")
                .queue("ORDERS", Permission.SEND, "anyone").build(), "security file test.yaml"),
                new AtomicReference<>());
        startQm1(50);
        Session onQm1 = connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        onQm1.createProducer(onQm1.createQueue("PAYROLL")).send(onQm1.createTextMessage("forged"));
        onQm1.createProducer(onQm1.createQueue("ORDERS")).send(onQm1.createTextMessage("fine"));

        Session onQm2 = connect(qm2.server().vmUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertEquals("fine", ((TextMessage) next(onQm2.createConsumer(onQm2.createQueue("ORDERS")))).getText());
        Message dead = next(onQm2.createConsumer(onQm2.createQueue(DeadLetters.QUEUE)));
        assertEquals("forged", ((TextMessage) dead).getText());
        assertEquals("Channel: the channel's user, an anonymous client, may not send to 'PAYROLL' (no 'send'"
                + " permission on it)", dead.getStringProperty(DeadLetters.REASON_PROPERTY));
        assertEquals(0, qm2.server().queueManager().queue("PAYROLL").depth());
    }

    @Test
    void aMessageForAQueueThatDoesNotExistGoesToTheDeadLetterQueueUnlessTheChannelUserMayCreateIt() throws Exception {
        AccessControl rules = new AccessControl(PermissionRules.builder().connect("anyone").channel("anyone")
                .queue("**", Permission.SEND, "anyone").queue("MADE.**", Permission.CREATE, "anyone").build(),
                "security file test.yaml");
        qm2 = servers.keep(TestServer.start(c -> c.name("QM2").autoCreate(true), config -> WharfServer.builder(config)
                .accessControl(rules).plugins(new ChannelsPlugin(new ChannelSettings(List.of(
                        ChannelDefinition.receiver("TO.QM2", null, null))))).start()));
        TestServer qm1 = servers.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2")), ChannelDefinition.sender("TO.QM2",
                qm2.server().tcpUrl(), "QM2", null, null).withTimes(50, 60_000));
        Session onQm1 = connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        onQm1.createProducer(onQm1.createQueue("queue://QM2/OTHER")).send(onQm1.createTextMessage("nowhere"));
        onQm1.createProducer(onQm1.createQueue("queue://QM2/MADE.ORDERS")).send(onQm1.createTextMessage("made"));

        Session onQm2 = connect(qm2.server().vmUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertEquals("made", ((TextMessage) next(onQm2.createConsumer(onQm2.createQueue("MADE.ORDERS")))).getText());
        Message dead = next(onQm2.createConsumer(onQm2.createQueue(DeadLetters.QUEUE)));
        assertEquals("nowhere", ((TextMessage) dead).getText());
        assertEquals("Channel: queue manager QM2 has no queue 'OTHER', and the channel's user, an anonymous client,"
                + " may not create it (no 'create' permission)", dead.getStringProperty(DeadLetters.REASON_PROPERTY));
    }

    private static Message next(MessageConsumer consumer) throws Exception {
        return ChannelServers.next(consumer);
    }
}
