package org.wharfmq.server.channels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.it.TcpProxy;
import org.wharfmq.server.management.JournalStatus;
import org.wharfmq.server.queue.DeadLetters;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.transport.ConnectionInfo;

import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * nonPersistentSpeed FAST agreed by both ends (IBM MQ's NPMSPEED FAST): non-persistent messages travel outside the
 * batches, with no XA branch, no sync record and no journal write at either end; persistent messages keep the
 * batches, exactly once across a connection cut in the middle of one; either end's normal makes the channel fall back
 * to batches for every message, which the receiver puts inside its queue manager as it puts FAST ones. Two queue
 * managers in one JVM, through the real JMS client at both ends.
 */
class ChannelFastTest {

    private final ChannelServers servers = new ChannelServers();
    private TestServer qm1;
    private TestServer qm2;
    private ChannelsPlugin qm1Channels;
    private ChannelsPlugin qm2Channels;

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    /** QM2 with ORDERS and receiver TO.QM2 at {@code speed}. */
    private void startQm2(ChannelDefinition.NonPersistentSpeed speed) throws Exception {
        startQm2(speed, 0);
    }

    /** QM2 with ORDERS (at most {@code maxDepth} messages, 0: the default) and receiver TO.QM2 at {@code speed}. */
    private void startQm2(ChannelDefinition.NonPersistentSpeed speed, int maxDepth) throws Exception {
        qm2Channels = new ChannelsPlugin(new ChannelSettings(List.of(ChannelDefinition.receiver("TO.QM2", null, "QM1")
                .withReceiving(speed, 10))));
        qm2 = servers.keep(TestServer.start(c -> maxDepth > 0 ? c.name("QM2").autoCreate(false).queue("ORDERS", maxDepth)
                : c.name("QM2").autoCreate(false).queue("ORDERS"), c -> WharfServer.builder(c).plugins(qm2Channels).start()));
    }

    /** QM1 whose sender TO.QM2 asks for {@code speed} and reaches QM2 at {@code url}. */
    private void startQm1(ChannelDefinition.NonPersistentSpeed speed, String url, int batchSize) throws Exception {
        startQm1(speed, url, batchSize, 300);
    }

    /** QM1 whose sender TO.QM2 asks for {@code speed}, reaches QM2 at {@code url} and beats every {@code heartbeat} ms. */
    private void startQm1(ChannelDefinition.NonPersistentSpeed speed, String url, int batchSize, int heartbeat)
            throws Exception {
        qm1Channels = new ChannelsPlugin(new ChannelSettings(List.of(ChannelDefinition.sender("TO.QM2", url, "QM2",
                null, null).withBatchSize(batchSize).withTimes(50, 60_000).withHeartbeat(heartbeat)
                .withNonPersistentSpeed(speed))));
        qm1 = servers.keep(TestServer.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                c -> WharfServer.builder(c).plugins(qm1Channels).start()));
    }

    @Test
    void nonPersistentMessagesCrossOutsideTheBatchesWithoutAJournalWriteAtEitherEnd() throws Exception {
        startQm2(ChannelDefinition.NonPersistentSpeed.FAST);
        startQm1(ChannelDefinition.NonPersistentSpeed.FAST, qm2.server().tcpUrl(), 50);
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        Session onQm2 = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        producer.send(onQm1.createTextMessage("first")); // the channel starts
        assertEquals("first", ((TextMessage) ChannelServers.next(orders)).getText());
        JournalStatus qm1Before = qm1.server().management().journal();
        JournalStatus qm2Before = qm2.server().management().journal();
        long receiverInVmBefore = receiverInVmBytesIn();

        for (int i = 0; i < 100; i++) {
            producer.send(onQm1.createTextMessage("order " + i));
        }
        for (int i = 0; i < 100; i++) {
            assertEquals("order " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        // one at a time, each alone on the transmission queue as a request/reply stream has them (fewer than half the
        // credit of 50): the sender acknowledges them there once the queue stays empty, not one by one
        for (int i = 0; i < 20; i++) {
            producer.send(onQm1.createTextMessage("request " + i));
            assertEquals("request " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        // barriers: the receiver counted all 121 (a batch's are counted once its sync record is committed), the
        // sender sent them all and took them off its transmission queue for good
        ChannelStatus received = ChannelServers.await(qm2Channels, s -> s.messages() == 121);
        ChannelStatus sent = ChannelServers.await(qm1Channels, s -> s.messages() == 121
                && Long.valueOf(0).equals(s.transmissionQueueDepth()));
        assertEquals("fast", received.nonPersistentSpeed());
        assertEquals("fast", sent.nonPersistentSpeed());
        assertEquals(0, received.batches(), "no batch: " + received);
        assertEquals(0, sent.batches(), "no batch: " + sent);
        assertEquals(0, received.sequence(), "they count in no sequence number: " + received);
        // the 120 after the first went from the threads that put them for QM2 (QM1's event loops), past the
        // transmission queue or as it delivered them, not from the channel's thread woken per message: all but those
        // that came while that thread was awake
        long byPutters = qm1Channels.messagesSentByTheirPutters("TO.QM2");
        assertTrue(byPutters >= 60 && byPutters <= 120, "sent by the threads that put them: " + byPutters + " of 120");
        assertTrue(qm1Channels.messagesHandedOver("TO.QM2") > 0, "none went past the queue");
        assertTrue(qm1.server().management().preparedBranches().isEmpty());
        // not one journal record, let alone a forced write, on either queue manager
        assertEquals(qm1Before.records(), qm1.server().management().journal().records(), "QM1 wrote to its journal");
        assertEquals(qm1Before.syncs(), qm1.server().management().journal().syncs(), "QM1 synced its journal");
        assertEquals(qm2Before.records(), qm2.server().management().journal().records(), "QM2 wrote to its journal");
        assertEquals(qm2Before.syncs(), qm2.server().management().journal().syncs(), "QM2 synced its journal");
        // the receiver put them inside QM2, through a session of its partner's connection: not one frame went over
        // the receiver's in-VM connection (which carries its batches)
        assertEquals(receiverInVmBefore, receiverInVmBytesIn(), "the receiver put them as an in-VM client");
        assertSenderTakesItsTransmissionQueueInside();
        Receive.nothingMore(orders);
    }

    @Test
    void batchesArePutInsideTheReceivingQueueManagerWithTheirSyncRecordInOneTransaction() throws Exception {
        startQm2(ChannelDefinition.NonPersistentSpeed.NORMAL);
        startQm1(ChannelDefinition.NonPersistentSpeed.NORMAL, qm2.server().tcpUrl(), 10);
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        Session onQm2 = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        producer.send(onQm1.createTextMessage("first")); // the channel starts
        assertEquals("first", ((TextMessage) ChannelServers.next(orders)).getText());
        ChannelServers.await(qm2Channels, s -> s.messages() == 1);
        long receiverInVmBefore = receiverInVmBytesIn();

        for (int i = 0; i < 100; i++) { // in batches of 10 (normal: the non-persistent ones too), in order
            producer.send(onQm1.createTextMessage("order " + i),
                    i % 3 == 0 ? DeliveryMode.NON_PERSISTENT : DeliveryMode.PERSISTENT, 4, 0);
        }
        for (int i = 0; i < 100; i++) {
            assertEquals("order " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        ChannelStatus received = ChannelServers.await(qm2Channels, s -> s.messages() == 101);
        assertEquals(101, received.sequence(), "the sync record's sequence number: " + received);
        assertTrue(received.batches() >= 10, "they came in batches: " + received);
        // each batch was put inside QM2, on its partner's connection: not one frame went over the receiver's in-VM
        // connection (which carried every batch before, and now reads the sync record at the start alone)
        assertEquals(receiverInVmBefore, receiverInVmBytesIn(), "the receiver put its batches as an in-VM client");
        // each commit took the last sync record's place, in its own transaction: one record for the channel
        assertEquals(1, qm2.server().queueManager().queue(ChannelConfiguration.SYNC_QUEUE).depth());
        assertSenderTakesItsTransmissionQueueInside();
        Receive.nothingMore(orders);
    }

    /**
     * The sender took its transmission queue inside QM1 (an in-process session, no frame): QM1 has no in-VM
     * connection, where the sender's DELIVERs, ACKs, CREDITs and XA frames used to go.
     */
    private void assertSenderTakesItsTransmissionQueueInside() {
        List<ConnectionInfo> inVm = qm1.server().management().connections().stream()
                .filter(c -> "vm".equals(c.transport())).toList();
        assertTrue(inVm.isEmpty(), "the sender took its transmission queue as an in-VM client: " + inVm);
    }

    /** A producer of non-persistent messages on QM1's session {@code session}, and the consumer of ORDERS on QM2. */
    private record Stream(Session session, MessageProducer producer, MessageConsumer orders) {
        void send(int i, int deliveryMode) throws Exception {
            producer.send(session.createTextMessage("order " + i), deliveryMode, 4, 0);
        }
    }

    /**
     * Starts the channel with "order -1" and returns once the partner has confirmed it and it left the transmission
     * queue: the channel's thread waits in its stream of FAST messages.
     */
    private Stream streaming() throws Exception {
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        Session onQm2 = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Stream stream = new Stream(onQm1, producer, onQm2.createConsumer(onQm2.createQueue("ORDERS")));
        stream.send(-1, DeliveryMode.NON_PERSISTENT); // the channel starts
        assertEquals("order -1", ((TextMessage) ChannelServers.next(stream.orders())).getText());
        ChannelServers.await(qm1Channels, s -> Long.valueOf(0).equals(s.transmissionQueueDepth()));
        return stream;
    }

    /** The bytes QM2 has read from the in-VM connection of its receiver channel TO.QM2. */
    private long receiverInVmBytesIn() {
        return qm2.server().management().connections().stream()
                .filter(c -> "receiver channel TO.QM2".equals(c.clientName())).findFirst().orElseThrow().bytesIn();
    }

    @Test
    void aNonPersistentMessageOutsideTheBatchesThatItsQueueRefusesGoesToTheDeadLetterQueueWithTheReason()
            throws Exception {
        startQm2(ChannelDefinition.NonPersistentSpeed.FAST, 3);
        startQm1(ChannelDefinition.NonPersistentSpeed.FAST, qm2.server().tcpUrl(), 50);
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        for (int i = 0; i < 5; i++) {
            producer.send(onQm1.createTextMessage("order " + i));
        }
        Session onQm2 = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer dead = onQm2.createConsumer(onQm2.createQueue(SystemQueues.DEAD_LETTER_QUEUE));
        for (int i = 3; i < 5; i++) { // the last messages of the channel: no later put reads their answers
            Message m = ChannelServers.next(dead);
            assertEquals("order " + i, ((TextMessage) m).getText());
            assertTrue(m.getStringProperty(DeadLetters.REASON_PROPERTY).startsWith("Channel: queue manager QM2 could"
                    + " not put it on 'ORDERS'"), m.getStringProperty(DeadLetters.REASON_PROPERTY));
        }
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        for (int i = 0; i < 3; i++) {
            assertEquals("order " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        assertEquals("fast", ChannelServers.await(qm2Channels, s -> s.messages() == 5).nonPersistentSpeed());
        Receive.nothingMore(orders);
        Receive.nothingMore(dead);
    }

    @Test
    void aReceiverThatSaysNormalMakesTheSenderPutEveryMessageInBatchesInOrder() throws Exception {
        startQm2(ChannelDefinition.NonPersistentSpeed.NORMAL);
        startQm1(ChannelDefinition.NonPersistentSpeed.FAST, qm2.server().tcpUrl(), 7);
        crossInBatchesInOrder();
    }

    @Test
    void aSenderThatSaysNormalPutsEveryMessageInBatchesInOrder() throws Exception {
        startQm2(ChannelDefinition.NonPersistentSpeed.FAST);
        startQm1(ChannelDefinition.NonPersistentSpeed.NORMAL, qm2.server().tcpUrl(), 7);
        crossInBatchesInOrder();
    }

    /** 40 messages, persistent and not by turns, arrive in one order, all in batches. */
    private void crossInBatchesInOrder() throws Exception {
        servers.sendOrdersByTurns(qm1.server().tcpUrl(), 40);
        Session onQm2 = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        for (int i = 0; i < 40; i++) {
            assertEquals("order " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        // the sender's sequence number and its emptied transmission queue, not its count: a batch left in doubt by a
        // reconnection (a heartbeat missed on a loaded machine) is resolved, not counted, when the channel runs again
        ChannelStatus sent = ChannelServers.await(qm1Channels, s -> s.sequence() == 40
                && Long.valueOf(0).equals(s.transmissionQueueDepth()));
        // read after the sender had the last batch confirmed: the receiver counts a message as it puts it, and moves
        // its sequence number when the batch commits, before it confirms it
        ChannelStatus received = ChannelServers.await(qm2Channels, s -> s.messages() == 40);
        assertEquals("normal", received.nonPersistentSpeed());
        assertEquals("normal", sent.nonPersistentSpeed());
        assertEquals(40, received.sequence(), "every message in a batch: " + received);
        assertTrue(received.batches() >= 6, "batches of at most 7: " + received);
        Receive.nothingMore(orders);
    }

    @Test
    void persistentMessagesCrossExactlyOnceInOrderAcrossACutInTheMiddleOfABatchBesideFastOnes() throws Exception {
        startQm2(ChannelDefinition.NonPersistentSpeed.FAST);
        TcpProxy proxy = servers.keep(TcpProxy.start(qm2.server().tcpPort()));
        startQm1(ChannelDefinition.NonPersistentSpeed.FAST, proxy.url(), 10);
        AtomicInteger prepared = new AtomicInteger();
        qm1Channels.hooks("TO.QM2", () -> {
            if (prepared.incrementAndGet() == 3) {
                proxy.killConnections(); // batch 3 is prepared on QM1 and on its way: its end never arrives
            }
        }, () -> { });
        // runs of ten persistent then ten non-persistent messages, persistent ones last: the persistent ones fill
        // batches of ten, the non-persistent ones go outside the batches
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        for (int i = 0; i < 210; i++) {
            producer.send(onQm1.createTextMessage("order " + i),
                    i / 10 % 2 == 0 ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT, 4, 0);
        }
        onQm1.commit();

        Session onQm2 = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        List<Integer> persistent = new ArrayList<>();
        List<Integer> nonPersistent = new ArrayList<>();
        // the last persistent batch is committed after the receiver put every non-persistent message before it, so
        // those come first off the queue: once it is in, every one not lost is
        while (persistent.size() < 110) {
            Message m = ChannelServers.next(orders);
            int n = Integer.parseInt(((TextMessage) m).getText().substring("order ".length()));
            (m.getJMSDeliveryMode() == DeliveryMode.PERSISTENT ? persistent : nonPersistent).add(n);
        }
        // every persistent message once, in order; the non-persistent ones at most once each, in order (one on its
        // way when the connection was cut may be lost, as FAST allows)
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 210; i++) {
            if (i / 10 % 2 == 0) {
                expected.add(i);
            }
        }
        assertEquals(expected, persistent);
        ChannelStatus sent = ChannelServers.await(qm1Channels, s -> Long.valueOf(0).equals(s.transmissionQueueDepth())
                && s.nonPersistentSpeed() != null);
        // 110 and more: a non-persistent message that comes while a batch is gathered goes in it
        ChannelStatus received = ChannelServers.await(qm2Channels, s -> s.sequence() >= 110);
        for (int i = 1; i < nonPersistent.size(); i++) {
            assertTrue(nonPersistent.get(i) > nonPersistent.get(i - 1), "twice or out of order: " + nonPersistent);
        }
        assertTrue(nonPersistent.size() >= 80, "the non-persistent messages after the cut arrived: " + nonPersistent);
        assertTrue(prepared.get() > 3, "the cut batch went again: " + prepared.get());
        assertEquals("fast", sent.nonPersistentSpeed());
        assertTrue(received.sequence() < 210, "the non-persistent messages mostly outside the batches: " + received);
        assertTrue(qm1.server().management().preparedBranches().isEmpty());
        Receive.nothingMore(orders);
    }

    @Test
    void aMessagePutWhileTheChannelStreamsGoesPastTheQueueWithinTheCreditAndOvertakesNoQueuedOne() throws Exception {
        startQm2(ChannelDefinition.NonPersistentSpeed.FAST);
        TcpProxy proxy = servers.keep(TcpProxy.start(qm2.server().tcpPort()));
        // a credit of 10; heartbeats far apart, so that answers held a while are no loss of the connection
        startQm1(ChannelDefinition.NonPersistentSpeed.FAST, proxy.url(), 10, 60_000);
        Stream stream = streaming();

        proxy.holdReplies(); // no confirmation comes back, so no credit: the first 10 go, the rest wait on QM1
        for (int i = 0; i < 30; i++) {
            stream.send(i, DeliveryMode.NON_PERSISTENT);
        }
        // the 10 written count in the depth until confirmed, as the 20 waiting do; not one more is written
        ChannelStatus held = ChannelServers.await(qm1Channels, s -> Long.valueOf(30).equals(s.transmissionQueueDepth())
                && s.messages() == 11);
        long handedOver = qm1Channels.messagesHandedOver("TO.QM2");
        assertTrue(handedOver >= 1 && handedOver <= 10, "past the queue: " + handedOver + "; " + held);
        assertEquals(11, qm1Channels.status().get(0).messages(), "written beyond the credit of 10");

        proxy.releaseReplies(); // the credit comes back, and the 20 go as the next 170 are put
        for (int i = 30; i < 200; i++) {
            stream.send(i, DeliveryMode.NON_PERSISTENT);
        }
        for (int i = 0; i < 200; i++) {
            assertEquals("order " + i, ((TextMessage) ChannelServers.next(stream.orders())).getText());
        }
        ChannelServers.await(qm1Channels, s -> Long.valueOf(0).equals(s.transmissionQueueDepth())
                && s.messages() == 201);
        Receive.nothingMore(stream.orders());
    }

    @Test
    void fastMessagesPutBesidePersistentOnesKeepEachKindsOrderWhetherQueuedOrPastTheQueue() throws Exception {
        startQm2(ChannelDefinition.NonPersistentSpeed.FAST);
        startQm1(ChannelDefinition.NonPersistentSpeed.FAST, qm2.server().tcpUrl(), 4);
        Stream stream = streaming();

        // every 25th persistent: each takes the channel's thread into a batch, the FAST ones behind it wait on the
        // queue for the channel, those put while it streams again go past the queue, racing the queued ones
        for (int i = 0; i < 400; i++) {
            stream.send(i, i % 25 == 24 ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT);
        }
        List<Integer> persistent = new ArrayList<>();
        List<Integer> nonPersistent = new ArrayList<>();
        while (persistent.size() + nonPersistent.size() < 400) {
            Message m = ChannelServers.next(stream.orders());
            int n = Integer.parseInt(((TextMessage) m).getText().substring("order ".length()));
            (m.getJMSDeliveryMode() == DeliveryMode.PERSISTENT ? persistent : nonPersistent).add(n);
        }
        List<Integer> expectedPersistent = new ArrayList<>();
        List<Integer> expectedNonPersistent = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            (i % 25 == 24 ? expectedPersistent : expectedNonPersistent).add(i);
        }
        assertEquals(expectedPersistent, persistent, "the persistent ones, once each in order");
        assertEquals(expectedNonPersistent, nonPersistent, "the non-persistent ones, once each in order");
        ChannelServers.await(qm1Channels, s -> Long.valueOf(0).equals(s.transmissionQueueDepth()));
        assertTrue(qm1Channels.messagesHandedOver("TO.QM2") > 0, "none went past the queue");
        assertTrue(qm1.server().management().preparedBranches().isEmpty());
        Receive.nothingMore(stream.orders());
    }

    @Test
    void aStreamOfFastMessagesFindsItsConnectionLostAndGoesOnOverANewOne() throws Exception {
        // reset on both sides once the proxy's threads leave their blocking reads (2 ms, more on a busy machine): the
        // sender's link reads the reset at once, but what was handed to it meanwhile is dropped unwritten (24 once
        // with the old sender, which took each off its transmission queue as it handed it over); unconfirmed, at most
        // the credit of them are lost
        int lost = streamThroughALostConnection(TcpProxy::killConnections);
        assertTrue(lost <= 10, "lost more than the credit of 10 (batchSize 10 × pipelineLength 1): " + lost);
    }

    @Test
    void aConnectionThatSwallowsAStreamOfFastMessagesUnnoticedLosesNoMoreThanTheCredit() throws Exception {
        // nothing reset, nothing relayed: the sender learns of the loss only when its heartbeat runs out, long after
        // it could have written the whole stream into the void; unconfirmed, no more than its credit goes there
        int lost = streamThroughALostConnection(TcpProxy::swallow);
        assertTrue(lost <= 10, "lost more than the credit of 10 (batchSize 10 × pipelineLength 1): " + lost);
        // the stream went past the transmission queue as it was put, spending the same credit
        assertTrue(qm1Channels.messagesHandedOver("TO.QM2") > 0, "none went past the queue");
    }

    /**
     * Starts a FAST channel with a credit of 10 through a proxy, loses its connection by {@code loss} once the
     * channel's first message is confirmed, then sends 100 FAST messages: nothing but FAST messages, so no batch
     * ends and only the confirmations can find the loss. Those written into the lost connection before the sender
     * saw it gone may be lost, as FAST allows; the rest go over a new one, once each and in order.
     *
     * @return how many of the 100 were lost
     */
    private int streamThroughALostConnection(Consumer<TcpProxy> loss) throws Exception {
        startQm2(ChannelDefinition.NonPersistentSpeed.FAST);
        TcpProxy proxy = servers.keep(TcpProxy.start(qm2.server().tcpPort()));
        startQm1(ChannelDefinition.NonPersistentSpeed.FAST, proxy.url(), 10);
        Stream stream = streaming();
        MessageConsumer orders = stream.orders();

        loss.accept(proxy);
        List<Integer> arrived = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            stream.send(i, DeliveryMode.NON_PERSISTENT);
        }
        while (arrived.isEmpty() || arrived.get(arrived.size() - 1) < 99) {
            arrived.add(Integer.parseInt(((TextMessage) ChannelServers.next(orders)).getText().substring(6)));
        }
        for (int i = 1; i < arrived.size(); i++) {
            assertTrue(arrived.get(i) > arrived.get(i - 1), "twice or out of order: " + arrived);
        }
        ChannelServers.await(qm1Channels, s -> Long.valueOf(0).equals(s.transmissionQueueDepth()));
        Receive.nothingMore(orders);
        return 100 - arrived.size();
    }

    @Test
    void aPartnerSendingAMessageOutsideTheBatchesWhenNotAgreedIsClosedAndNothingIsPut() throws Exception {
        startQm2(ChannelDefinition.NonPersistentSpeed.NORMAL);
        try (CoreLink hostile = CoreLink.open(qm2.server().tcpUrl(), Map.of(), null, null, "hostile", 0, 5_000)) {
            assertFalse(hostile.call(id -> new Frame.ChannelOpen(id, "TO.QM2", "QM1", true,
                    Frame.ChannelOpen.NO_RESET),
                    ChannelServers.EXPECTED_MS).channelStatus().fastNonPersistent(), "the receiver says normal");
            hostile.write(new Frame.ChannelFastMessage(ChannelServers.forged(false)));
            assertClosed(hostile, "the channel agreed on nonPersistentSpeed normal at its open");
        }
        assertEquals(0, qm2.server().queueManager().queue("ORDERS").depth()); // refused on the connection's loop
        ChannelServers.await(qm2Channels, s -> s.state().equals("INACTIVE"));
    }

    @Test
    void aPartnerSendingAPersistentMessageOutsideTheBatchesIsClosedAndNothingIsPut() throws Exception {
        startQm2(ChannelDefinition.NonPersistentSpeed.FAST);
        try (CoreLink hostile = CoreLink.open(qm2.server().tcpUrl(), Map.of(), null, null, "hostile", 0, 5_000)) {
            assertTrue(hostile.call(id -> new Frame.ChannelOpen(id, "TO.QM2", "QM1", true,
                    Frame.ChannelOpen.NO_RESET),
                    ChannelServers.EXPECTED_MS).channelStatus().fastNonPersistent(), "both ends say fast");
            hostile.write(new Frame.ChannelFastMessage(ChannelServers.forged(true)));
            assertClosed(hostile, "a persistent message travels in a batch only");
        }
        assertEquals(0, qm2.server().queueManager().queue("ORDERS").depth());
        ChannelServers.await(qm2Channels, s -> s.state().equals("INACTIVE"));
    }

    /**
     * The receiver closed the connection: the next request fails with its reason, or, when the close overtook the
     * error frame, only with the connection's loss.
     */
    private static void assertClosed(CoreLink hostile, String reason) {
        ClientException closed = assertThrows(ClientException.class,
                () -> hostile.call(id -> new Frame.ChannelEndBatch(id, 0, 1), ChannelServers.EXPECTED_MS));
        String m = closed.getMessage();
        assertTrue(m.contains(reason) || m.contains("was lost"), m);
    }
}
