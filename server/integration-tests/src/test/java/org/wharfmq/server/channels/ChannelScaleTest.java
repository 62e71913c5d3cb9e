package org.wharfmq.server.channels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.queue.DeadLetters;

import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Channels' throughput features and robustness: several channels between one pair of queue managers, pipelined
 * batches (pipelineLength 2) in doubt, non-persistent messages outside the batch (nonPersistentSpeed fast), and a batch
 * the receiver cannot commit.
 */
class ChannelScaleTest {

    private static final int CHANNELS = 3;

    private final ChannelServers servers = new ChannelServers();

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    @Test
    void threeChannelsEachWayBetweenTwoQueueManagersKeepEachChannelsOrderAndDeliverOnce() throws Exception {
        int qm1Port = FreePorts.one();
        int qm2Port = FreePorts.one();
        ChannelsPlugin[] plugins = new ChannelsPlugin[2];
        TestServer qm2 = start(plugins, 1, "QM2", qm2Port, "QM1", qm1Port);
        TestServer qm1 = start(plugins, 0, "QM1", qm1Port, "QM2", qm2Port);
        int perChannel = 120;
        sendToEachChannel(qm1, perChannel);
        sendToEachChannel(qm2, perChannel);

        for (TestServer receiving : List.of(qm2, qm1)) {
            Session session = servers.connect(receiving.server().tcpUrl()).createSession(false,
                    Session.AUTO_ACKNOWLEDGE);
            for (int c = 1; c <= CHANNELS; c++) {
                MessageConsumer in = session.createConsumer(session.createQueue("IN." + c));
                for (int i = 0; i < perChannel; i++) {
                    assertEquals("channel " + c + " message " + i, ((TextMessage) ChannelServers.next(in)).getText());
                }
                Receive.nothingMore(in);
            }
            // one sync record per channel, each with its own sequence number
            assertEquals(CHANNELS, receiving.server().queueManager().queue(ChannelConfiguration.SYNC_QUEUE).depth());
        }
        for (ChannelsPlugin plugin : plugins) {
            for (ChannelStatus status : plugin.status()) {
                if (status.type().equals("receiver")) {
                    assertEquals(perChannel, status.sequence(), status.toString());
                }
            }
        }
    }

    /** A queue manager with {@value #CHANNELS} channels to the partner and {@value #CHANNELS} receivers from it. */
    private TestServer start(ChannelsPlugin[] plugins, int index, String name, int port, String partner,
                             int partnerPort) throws Exception {
        UnaryOperator<ServerConfig.Builder> config = c -> {
            c.name(name).port(port).autoCreate(false);
            for (int i = 1; i <= CHANNELS; i++) {
                c.queue("IN." + i).queue(QueueDefinition.transmissionQueue(partner + ".XMIT." + i))
                        .reference(QueueReference.remote("OUT." + i, "IN." + i, partner, partner + ".XMIT." + i));
            }
            return c;
        };
        List<ChannelDefinition> channels = new ArrayList<>();
        for (int i = 1; i <= CHANNELS; i++) {
            channels.add(ChannelDefinition.sender(name + ".TO." + partner + "." + i, "tcp://127.0.0.1:" + partnerPort,
                    partner + ".XMIT." + i, null, null).withBatchSize(7).withTimes(50, 60_000)
                    .withPipelineLength(i % 2 == 0 ? 1 : 2));
            // normal: non-persistent messages keep their place among the persistent ones (fast lets them overtake)
            channels.add(ChannelDefinition.receiver(partner + ".TO." + name + "." + i, null, partner)
                    .withReceiving(ChannelDefinition.NonPersistentSpeed.NORMAL, 10));
        }
        plugins[index] = new ChannelsPlugin(new ChannelSettings(channels));
        return servers.keep(TestServer.start(config, c -> org.wharfmq.server.WharfServer.builder(c)
                .plugins(plugins[index]).start()));
    }

    /** {@code count} messages through each channel, persistent and not, the channels' sends interleaved. */
    private void sendToEachChannel(TestServer qm, int count) throws Exception {
        Session session = servers.connect(qm.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        List<MessageProducer> producers = new ArrayList<>();
        for (int c = 1; c <= CHANNELS; c++) {
            producers.add(session.createProducer(session.createQueue("OUT." + c)));
        }
        for (int i = 0; i < count; i++) {
            for (int c = 1; c <= CHANNELS; c++) {
                producers.get(c - 1).send(session.createTextMessage("channel " + c + " message " + i),
                        i % 3 == 0 ? DeliveryMode.NON_PERSISTENT : DeliveryMode.PERSISTENT, 4, 0);
            }
        }
    }

    @Test
    void withTwoBatchesOnTheWayACrashAfterTheFirstIsConfirmedLosesAndDoublesNothing() throws Exception {
        twoBatchesInDoubt(true);
    }

    @Test
    void withTwoBatchesOnTheWayACrashBeforeTheSecondEndsLosesAndDoublesNothing() throws Exception {
        twoBatchesInDoubt(false);
    }

    /**
     * The sender's crash (a hook that throws) with batch 1 ended on the receiver and batch 2 prepared: after batch
     * 1's confirmation ({@code afterConfirm}), when batch 2 may or may not be committed on the receiver, or before
     * batch 2 ends ({@code afterPrepare} of batch 2), when the receiver has at most batch 1.
     */
    private void twoBatchesInDoubt(boolean afterConfirm) throws Exception {
        TestServer qm2 = servers.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS"),
                ChannelDefinition.receiver("TO.QM2", null, "QM1"));
        ChannelsPlugin qm1Channels = new ChannelsPlugin(new ChannelSettings(List.of(ChannelDefinition.sender("TO.QM2",
                qm2.server().tcpUrl(), "QM2", null, null).withBatchSize(5).withTimes(50, 60_000)
                .withPipelineLength(2))));
        TestServer qm1 = servers.keep(TestServer.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                c -> org.wharfmq.server.WharfServer.builder(c).plugins(qm1Channels).start()));
        AtomicInteger prepared = new AtomicInteger();
        AtomicInteger confirmed = new AtomicInteger();
        qm1Channels.hooks("TO.QM2", () -> {
            if (!afterConfirm && prepared.incrementAndGet() == 2) {
                throw new IllegalStateException("the test's crash before batch 2 ends, batch 1 on the way");
            }
        }, () -> {
            if (afterConfirm && confirmed.incrementAndGet() == 1) {
                throw new IllegalStateException("the test's crash after batch 1's confirmation, batch 2 prepared");
            }
        });
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        for (int i = 0; i < 23; i++) {
            producer.send(onQm1.createTextMessage("order " + i));
        }
        onQm1.commit(); // all on the transmission queue at once: batch 2 is prepared before batch 1 is confirmed

        Session onQm2 = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        for (int i = 0; i < 23; i++) {
            assertEquals("order " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        Receive.nothingMore(orders);
        assertTrue(afterConfirm ? confirmed.get() >= 1 : prepared.get() >= 2);
        awaitEmpty(qm1, "QM2");
        assertTrue(qm1.server().management().preparedBranches().isEmpty());
    }

    @Test
    void fastNonPersistentMessagesArePutOnceWhenTheirBatchIsSentAgain() throws Exception {
        TestServer qm2 = servers.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS"),
                ChannelDefinition.receiver("TO.QM2", null, "QM1")); // nonPersistentSpeed fast, the default
        ChannelsPlugin qm1Channels = new ChannelsPlugin(new ChannelSettings(List.of(ChannelDefinition.sender("TO.QM2",
                qm2.server().tcpUrl(), "QM2", null, null).withBatchSize(6).withTimes(50, 60_000))));
        TestServer qm1 = servers.keep(TestServer.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                c -> org.wharfmq.server.WharfServer.builder(c).plugins(qm1Channels).start()));
        AtomicInteger prepared = new AtomicInteger();
        qm1Channels.hooks("TO.QM2", () -> {
            if (prepared.incrementAndGet() == 1) {
                // the receiver has the batch's messages (the non-persistent ones put), but not its end
                throw new IllegalStateException("the test's crash before the first batch ends");
            }
        }, () -> { });
        servers.sendOrdersByTurns(qm1.server().tcpUrl(), 18);

        Session onQm2 = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        List<Integer> persistent = new ArrayList<>();
        List<Integer> nonPersistent = new ArrayList<>();
        for (int i = 0; i < 18; i++) {
            Message m = ChannelServers.next(orders);
            int n = Integer.parseInt(((TextMessage) m).getText().substring("order ".length()));
            (m.getJMSDeliveryMode() == DeliveryMode.PERSISTENT ? persistent : nonPersistent).add(n);
        }
        Receive.nothingMore(orders); // a non-persistent message put again with its batch would be left here
        // each kind in its order; a fast non-persistent message may overtake the persistent ones of its batch
        assertEquals(List.of(1, 3, 5, 7, 9, 11, 13, 15, 17), persistent);
        assertEquals(List.of(0, 2, 4, 6, 8, 10, 12, 14, 16), nonPersistent);
        assertTrue(prepared.get() > 1);
    }

    @Test
    void aBatchTheReceiverCannotCommitGoesMessageByMessageToTheDeadLetterQueueAfterItsAttempts() throws Exception {
        TestServer qm2 = servers.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS", 3),
                ChannelDefinition.receiver("TO.QM2", null, "QM1")
                        .withReceiving(ChannelDefinition.NonPersistentSpeed.NORMAL, 2));
        TestServer qm1 = servers.start(c -> c.name("QM1").autoCreate(false)
                        .queue(QueueDefinition.transmissionQueue("QM2"))
                        .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                ChannelDefinition.sender("TO.QM2", qm2.server().tcpUrl(), "QM2", null, null).withBatchSize(10)
                        .withTimes(50, 60_000));
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        for (int i = 0; i < 5; i++) {
            producer.send(onQm1.createTextMessage("order " + i)); // persistent
        }
        onQm1.commit(); // one batch of 5 for a queue that holds 3: its commit fails, twice

        Session onQm2 = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer dead = onQm2.createConsumer(onQm2.createQueue(DeadLetters.QUEUE));
        for (int i = 3; i < 5; i++) {
            Message m = ChannelServers.next(dead);
            assertEquals("order " + i, ((TextMessage) m).getText());
            assertEquals(DeliveryMode.PERSISTENT, m.getJMSDeliveryMode());
            String reason = m.getStringProperty(DeadLetters.REASON_PROPERTY);
            // the sender may cut the five into two batches (it can start one while the commit offers them): the
            // batch's number varies, the second attempt message by message does not
            assertTrue(reason.matches("Channel: queue manager QM2 could not put it on 'ORDERS' \\(batch \\d+, "
                    + "attempt 2\\): Queue 'ORDERS' is full.*"), reason);
            assertEquals("ORDERS", m.getStringProperty(DeadLetters.QUEUE_PROPERTY));
        }
        Receive.nothingMore(dead);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        for (int i = 0; i < 3; i++) {
            assertEquals("order " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        Receive.nothingMore(orders);
        awaitEmpty(qm1, "QM2");
    }

    @Test
    void aBatchNeitherItsQueueNorTheDeadLetterQueueTakesStopsTheChannelAndKeepsTheBatch() throws Exception {
        TestServer qm2 = servers.start(c -> c.name("QM2").autoCreate(false).maxQueueDepth(2).queue("ORDERS", 1),
                ChannelDefinition.receiver("TO.QM2", null, "QM1")
                        .withReceiving(ChannelDefinition.NonPersistentSpeed.NORMAL, 1));
        // one batch of four: the commit's messages may reach the queue one by one, so the batch waits for its fourth
        // instead of ending when the queue is briefly empty (a first batch of one would commit on ORDERS)
        ChannelsPlugin qm1Channels = new ChannelsPlugin(new ChannelSettings(List.of(ChannelDefinition.sender("TO.QM2",
                qm2.server().tcpUrl(), "QM2", null, null).withBatchSize(4).withTimes(50, 60_000)
                .with(ChannelConfiguration.BATCH_INTERVAL_MILLIS, 60_000L))));
        TestServer qm1 = servers.keep(TestServer.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                c -> org.wharfmq.server.WharfServer.builder(c).plugins(qm1Channels).start()));
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        for (int i = 0; i < 4; i++) {
            producer.send(onQm1.createTextMessage("order " + i));
        }
        onQm1.commit(); // 1 fits on ORDERS, 2 on the dead-letter queue, the fourth nowhere

        ChannelStatus stopped = ChannelServers.awaitStopped(qm1Channels);
        assertEquals(ChannelStatus.BATCH_REFUSED, stopped.stopCause(), "what the metrics alert on");
        assertTrue(stopped.reason().contains("could not go to the dead-letter queue SYSTEM.DEAD.LETTER.QUEUE either"),
                stopped.reason());
        assertTrue(stopped.reason().contains("start the channel again on the sending queue manager (wharf admin start"
                + " channel TO.QM2)"), stopped.reason());
        assertEquals(0, qm2.server().queueManager().queue("ORDERS").depth()); // the batch was rolled back whole
        assertEquals(0, qm2.server().queueManager().queue(DeadLetters.QUEUE).depth());
        // nothing lost: the batch waits on QM1, in doubt until the channel starts again
        assertEquals(1, qm1.server().management().preparedBranches().size());
    }

    /** Waits until the channel has taken everything off transmission queue {@code queue} for good. */
    private static void awaitEmpty(TestServer qm, String queue) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ChannelServers.EXPECTED_MS);
        while ((qm.server().queueManager().queue(queue).depth() > 0
                || !qm.server().management().preparedBranches().isEmpty()) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000); // polls the depth the queue manager reports
        }
        assertEquals(0, qm.server().queueManager().queue(queue).depth());
    }
}
