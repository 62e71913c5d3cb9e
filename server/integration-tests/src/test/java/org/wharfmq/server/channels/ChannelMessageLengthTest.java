package org.wharfmq.server.channels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.it.LargeMessages;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.management.QueueStatus;
import org.wharfmq.server.queue.DeadLetters;

import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A channel to a queue manager whose maxMessageLength is smaller than the sender's (docs/distributed.md, "Channels"):
 * a message of exactly the receiver's limit, as its channel puts it (transmission header and all), arrives; one a byte
 * longer is refused by its queue for its length and goes to the receiver's dead-letter queue, the reason naming its
 * length, the limit, the setting and the fix; the channel goes on. One more than {@link DeadLetters#HEADROOM_BYTES}
 * over the limit can go to neither: nothing of its batch is committed, the sender stops with the reason and keeps
 * the batch, in doubt. One more than {@link Configuration#FRAME_OVERHEAD_ALLOWANCE} over, whose frame the receiver
 * would skip unread, is not sent, persistent or FAST: the sender stops with the reason, the message on its
 * transmission queue, nothing in doubt.
 */
class ChannelMessageLengthTest {

    /** QM2's maxMessageLength; QM1 has the default, 100 MiB. */
    private static final int RECEIVER_LIMIT = 64 * 1024;
    /** The body of the first message, which measures what QM2's channel puts beyond a body. */
    private static final int PROBE_BODY = 1000;

    private final ChannelServers servers = new ChannelServers();

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    @Test
    void aMessageOneByteOverTheReceiversLimitGoesToItsDeadLetterQueueWithTheReasonAndOneFarOverStopsTheChannel()
            throws Exception {
        TestServer qm2 = servers.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS")
                        .maxMessageLength(RECEIVER_LIMIT),
                ChannelDefinition.receiver("TO.QM2", null, "QM1")
                        .withReceiving(ChannelDefinition.NonPersistentSpeed.NORMAL, 1));
        ChannelsPlugin qm1Channels = new ChannelsPlugin(new ChannelSettings(List.of(ChannelDefinition.sender("TO.QM2",
                qm2.server().tcpUrl(), "QM2", null, null).withTimes(50, 60_000))));
        TestServer qm1 = servers.keep(TestServer.start(c -> c.name("QM1").autoCreate(false)
                        .queue(QueueDefinition.transmissionQueue("QM2"))
                        .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                c -> WharfServer.builder(c).plugins(qm1Channels).start()));
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        producer.setDisableMessageID(true); // a message id's length grows with its number: one body, one length
        Session onQm2 = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);

        // what the channel puts on QM2 beyond the body (headers, JMSXUserID, the transmission header), as QM2 counts it
        producer.send(LargeMessages.message(onQm1, PROBE_BODY, 1), DeliveryMode.PERSISTENT, 4, 0);
        int headers = putLength(qm2) - PROBE_BODY;
        receive(onQm2, 1);

        producer.send(LargeMessages.message(onQm1, RECEIVER_LIMIT + 1 - headers, 2), DeliveryMode.PERSISTENT, 4, 0);
        producer.send(LargeMessages.message(onQm1, RECEIVER_LIMIT - headers, 3), DeliveryMode.PERSISTENT, 4, 0);
        assertEquals(RECEIVER_LIMIT, putLength(qm2), "the one of exactly QM2's limit is on its queue");
        receive(onQm2, 3);

        MessageConsumer deadLetters = onQm2.createConsumer(onQm2.createQueue(DeadLetters.QUEUE));
        Message dead = ChannelServers.next(deadLetters);
        assertEquals(2, LargeMessages.assertIntact(dead), "the one a byte over, intact");
        String reason = dead.getStringProperty(DeadLetters.REASON_PROPERTY);
        assertTrue(Pattern.matches(Pattern.quote("Channel: queue manager QM2 could not put it on 'ORDERS' (batch ")
                + "\\d+" + Pattern.quote(", attempt 1): The message is " + (RECEIVER_LIMIT + 1) + " bytes long (encoded:"
                + " headers, properties and body), more than queue manager QM2's maximum message length of "
                + RECEIVER_LIMIT + " bytes (setting maxMessageLength); it was not stored. Send a smaller message, or"
                + " raise maxMessageLength in queue manager QM2's configuration."), reason), reason);
        assertEquals("ORDERS", dead.getStringProperty(DeadLetters.QUEUE_PROPERTY));
        Receive.nothingMore(deadLetters);
        deadLetters.close();

        producer.send(LargeMessages.message(onQm1, PROBE_BODY, 4), DeliveryMode.PERSISTENT, 4, 0);
        receive(onQm2, 4); // the channel went on

        // too long for the dead-letter queue's headroom as well: the message can go nowhere on QM2
        int farOver = RECEIVER_LIMIT + DeadLetters.HEADROOM_BYTES + 1 - headers;
        producer.send(LargeMessages.message(onQm1, farOver, 5), DeliveryMode.PERSISTENT, 4, 0);
        ChannelStatus stopped = ChannelServers.awaitStopped(qm1Channels);
        assertEquals(ChannelStatus.BATCH_REFUSED, stopped.stopCause());
        assertTrue(stopped.reason().contains("more than queue manager QM2's maximum message length of "
                + RECEIVER_LIMIT + " bytes"), stopped.reason());
        assertTrue(stopped.reason().contains("could not go to the dead-letter queue SYSTEM.DEAD.LETTER.QUEUE either"),
                stopped.reason());
        assertTrue(stopped.reason().contains("The channel stops, its batch kept on the sender's transmission queue:"
                + " raise maxMessageLength in queue manager QM2's configuration (a restart) and start the channel"
                + " again on the sending queue manager (wharf admin start channel TO.QM2)."), stopped.reason());
        assertEquals(0, qm2.server().queueManager().queue("ORDERS").depth());
        assertEquals(0, qm2.server().queueManager().queue(DeadLetters.QUEUE).depth());
        assertEquals(1, qm1.server().management().preparedBranches().size(), "the batch waits on QM1, in doubt");
    }

    @Test
    void aPersistentMessageLongerThanTheReceiverReadsStopsTheChannelAndStaysOnTheTransmissionQueue() throws Exception {
        aMessageLongerThanTheReceiverReadsStopsTheChannel(DeliveryMode.PERSISTENT, false);
    }

    @Test
    void aFastMessageLongerThanTheReceiverReadsStopsTheChannelAndStaysOnTheTransmissionQueue() throws Exception {
        aMessageLongerThanTheReceiverReadsStopsTheChannel(DeliveryMode.NON_PERSISTENT, false);
    }

    @Test
    void aFastMessageLongerThanTheReceiverReadsPutWhileTheChannelStreamsIsNotTakenPastTheQueue() throws Exception {
        // the channel streams when it is put: the thread that puts it would write it past the transmission queue
        aMessageLongerThanTheReceiverReadsStopsTheChannel(DeliveryMode.NON_PERSISTENT, true);
    }

    /**
     * A message more than {@link Configuration#FRAME_OVERHEAD_ALLOWANCE} over the receiver's maxMessageLength: the
     * receiver would skip its frame unread (its decoder's limit), so it can go neither to its queue nor to the
     * dead-letter queue. The sender does not send it: it stops, naming the channel, the message's length, the
     * receiver's limit and the fix, and the message stays on its transmission queue, in no batch in doubt.
     */
    private void aMessageLongerThanTheReceiverReadsStopsTheChannel(int deliveryMode, boolean streaming)
            throws Exception {
        TestServer qm2 = servers.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS")
                        .maxMessageLength(RECEIVER_LIMIT),
                ChannelDefinition.receiver("TO.QM2", null, "QM1")
                        .withReceiving(ChannelDefinition.NonPersistentSpeed.FAST, 1));
        ChannelsPlugin qm1Channels = new ChannelsPlugin(new ChannelSettings(List.of(ChannelDefinition.sender("TO.QM2",
                qm2.server().tcpUrl(), "QM2", null, null).withTimes(50, 60_000)
                .withNonPersistentSpeed(ChannelDefinition.NonPersistentSpeed.FAST))));
        TestServer qm1 = servers.keep(TestServer.start(c -> c.name("QM1").autoCreate(false)
                        .queue(QueueDefinition.transmissionQueue("QM2"))
                        .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                c -> WharfServer.builder(c).plugins(qm1Channels, new AdminPlugin(qm1Channels.adminCommands()))
                        .start()));
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        if (streaming) { // a short FAST message first: the channel runs, and its thread waits in the stream
            producer.send(LargeMessages.message(onQm1, PROBE_BODY, 5), DeliveryMode.NON_PERSISTENT, 4, 0);
            ChannelServers.await(qm1Channels, s -> s.messages() == 1
                    && Long.valueOf(0).equals(s.transmissionQueueDepth()));
        }
        int length = RECEIVER_LIMIT + Configuration.FRAME_OVERHEAD_ALLOWANCE;
        Message tooLong = LargeMessages.message(onQm1, length, 6);
        producer.send(tooLong, deliveryMode, 4, 0);

        ChannelStatus stopped = ChannelServers.awaitStopped(qm1Channels);
        assertEquals(ChannelStatus.BATCH_REFUSED, stopped.stopCause());
        assertEquals(Long.valueOf(1), stopped.transmissionQueueDepth(), "the message waits on QM1: " + stopped);
        long stored = qm1.server().management().queue("QM2").memoryBytes() - Configuration.MESSAGE_OVERHEAD_BYTES;
        String reason = "it cannot send a message of its transmission queue QM2 (" + tooLong.getJMSMessageID()
                + "): it is " + stored + " bytes long, more than queue manager QM2 reads (its maxMessageLength of "
                + RECEIVER_LIMIT + " bytes, and " + Configuration.FRAME_OVERHEAD_ALLOWANCE + " more for a frame's own"
                + " fields), so it could go neither to its queue nor to its dead-letter queue. The channel stops, the"
                + " message kept on the transmission queue: raise maxMessageLength in queue manager QM2's"
                + " configuration (a restart) and start the channel again on the sending queue manager (wharf admin"
                + " start channel TO.QM2).";
        assertEquals(reason, stopped.reason());
        // the line under the table says "Channel TO.QM2 stopped: " once, before the reason
        String shown = AdminCli.ok(qm1.server().tcpUrl(), "display", "chstatus");
        assertTrue(shown.contains("\nChannel TO.QM2 stopped: " + reason + "\n"), shown);
        assertTrue(qm1.server().management().preparedBranches().isEmpty(), "no batch was sent, none is in doubt");
        assertEquals(streaming ? 1 : 0, qm2.server().queueManager().queue("ORDERS").depth(), "the first alone");
        assertEquals(0, qm2.server().queueManager().queue(DeadLetters.QUEUE).depth());
    }

    /**
     * Waits until QM2's ORDERS holds one message and returns its length as QM2 counts it (its memory less the
     * server's objects for it): the bytes its channel put.
     */
    private static int putLength(TestServer qm2) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ChannelServers.EXPECTED_MS);
        QueueStatus orders = qm2.server().management().queue("ORDERS");
        while (orders.depth() == 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000); // polls the depth the queue manager reports
            orders = qm2.server().management().queue("ORDERS");
        }
        assertEquals(1, orders.depth(), "one message on ORDERS " + ChannelServers.EXPECTED_MS + " ms on");
        return (int) (orders.memoryBytes() - Configuration.MESSAGE_OVERHEAD_BYTES);
    }

    /** Receives the message of {@code seed} from QM2's ORDERS, intact, and nothing after it. */
    private static void receive(Session onQm2, int seed) throws Exception {
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        assertEquals(seed, LargeMessages.assertIntact(ChannelServers.next(orders)));
        Receive.nothingMore(orders);
        orders.close();
    }
}
