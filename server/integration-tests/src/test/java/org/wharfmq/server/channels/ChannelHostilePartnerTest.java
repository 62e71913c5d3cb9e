package org.wharfmq.server.channels;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.PendingRequests;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.queue.DeadLetters;
import org.wharfmq.server.security.AuditLog;

import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A partner that opened QM2's receiver TO.QM2 (a real client over QM2's listener, with the channel permission: anonymous
 * on a queue manager without a security file) and then sends what no Wharf sender sends: a batch for QM2's own queues
 * (its channels' sync records, a transmission queue) and for a destination named as long as a message, a session on
 * the channel's connection, a batch longer than any sender's, batches ended faster than they commit, past a sender's
 * pipeline. The messages for QM2's own queues and the long name go to the dead-letter queue with the reason; the
 * session is refused; the partner that sends past the bounds is closed, saying so, and audited, and the true sender on
 * QM1 then runs the channel.
 */
class ChannelHostilePartnerTest {

    private final ChannelServers servers = new ChannelServers();
    private TestServer qm2;
    private LogCapture audit;

    @BeforeEach
    void start() throws Exception {
        audit = LogCapture.of(AuditLog.NAME);
        qm2 = servers.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS")
                        .queue(QueueDefinition.transmissionQueue("QM1"))
                        .reference(QueueReference.remote("HERE", null, "QM2", null)), // a queue-manager alias of QM2
                ChannelDefinition.receiver("TO.QM2", null, "QM1"));
    }

    @AfterEach
    void stop() throws Exception {
        servers.close();
        audit.close();
    }

    private CoreLink openAsQm1() throws Exception {
        CoreLink partner = servers.keep(CoreLink.open(qm2.server().tcpUrl(), Map.of(), null, null, "hostile", 0,
                5_000));
        partner.call(id -> new Frame.ChannelOpen(id, "TO.QM2", "QM1", false, Frame.ChannelOpen.NO_RESET),
                ChannelServers.EXPECTED_MS);
        return partner;
    }

    /** A message a partner sends for {@code queue} on QM2, its transmission header naming QM2. */
    private static ByteBuf forQm2(String queue, String text) {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.TEXT;
        m.body = text.getBytes(StandardCharsets.UTF_8);
        m.persistent = true;
        m.messageId = "ID:" + UUID.randomUUID();
        m.destination = WireDestination.queue(queue);
        m.timestamp = System.currentTimeMillis();
        m.properties.put(TransmissionHeader.QUEUE_MANAGER, "QM2");
        m.properties.put(TransmissionHeader.QUEUE, queue);
        m.properties.put(ReceiverState.CHANNEL, "TO.QM2"); // what a forged sync record would say
        m.properties.put(ReceiverState.SEQUENCE, 0L);
        m.properties.put(ReceiverState.BATCH, 0L);
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
        m.encode(out);
        return out;
    }

    @Test
    void aBatchForTheQueueManagersOwnQueuesGoesToTheDeadLetterQueueWithTheReason() throws Exception {
        CoreLink partner = openAsQm1();
        partner.write(new Frame.ChannelMessage(forQm2(ChannelConfiguration.SYNC_QUEUE, "forged sync record")));
        partner.write(new Frame.ChannelMessage(forQm2("QM1", "back and forth")));
        String longName = "ORDERS." + "X".repeat(2_000);
        partner.write(new Frame.ChannelMessage(forQm2(longName, "a name as long as a message")));
        partner.write(new Frame.ChannelMessage(forQm2("ORDERS", "an order")));
        partner.call(id -> new Frame.ChannelEndBatch(id, 4, 1), ChannelServers.EXPECTED_MS);

        Session inside = servers.connect(qm2.server().vmUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = inside.createConsumer(inside.createQueue("ORDERS"));
        assertEquals("an order", ((TextMessage) ChannelServers.next(orders)).getText());
        MessageConsumer dead = inside.createConsumer(inside.createQueue(DeadLetters.QUEUE));
        Message sync = ChannelServers.next(dead);
        assertEquals(ChannelConfiguration.SYNC_QUEUE, sync.getStringProperty(DeadLetters.QUEUE_PROPERTY));
        assertEquals("Channel: '" + ChannelConfiguration.SYNC_QUEUE + "' is a system queue of queue manager QM2,"
                + " which takes no messages from a channel, whatever the channel's user may do (docs/security.md,"
                + " \"Channels from other queue managers\"). The sending application names another queue",
                sync.getStringProperty(DeadLetters.REASON_PROPERTY));
        Message transmission = ChannelServers.next(dead);
        assertEquals("QM1", transmission.getStringProperty(DeadLetters.QUEUE_PROPERTY));
        assertTrue(transmission.getStringProperty(DeadLetters.REASON_PROPERTY).startsWith("Channel: 'QM1' is a"
                + " transmission queue of queue manager QM2, which takes only messages that queue manager addresses to"
                + " another"), transmission.getStringProperty(DeadLetters.REASON_PROPERTY));
        Message tooLong = ChannelServers.next(dead);
        assertEquals("Channel: its transmission header names a destination of 2007 characters ('"
                + longName.substring(0, 64) + "...'), longer than the 1024 a receiver takes",
                tooLong.getStringProperty(DeadLetters.REASON_PROPERTY));
        assertEquals(null, tooLong.getStringProperty(DeadLetters.QUEUE_PROPERTY), "the name copied whole");
        Receive.nothingMore(dead);
        assertEquals(0, qm2.server().management().queue("QM1").depth(), "put on the transmission queue");
        assertEquals(1, qm2.server().management().queue(ChannelConfiguration.SYNC_QUEUE).depth(),
                "a second sync record for TO.QM2");
    }

    /**
     * The same queues of QM2's own named by a qualified name, which no Wharf sender writes: the sync records' queue in
     * a header whose queue is qualified by QM2's name ({@code QM2/SYSTEM.CHANNEL.SYNCQ}) or whose queue manager is
     * empty ({@code /SYSTEM.CHANNEL.SYNCQ}), and the transmission queue QM1 through HERE, a queue-manager alias of QM2
     * ({@code HERE/QM1}). Each resolves to the queue here, so each goes to the dead-letter queue with the reason, as
     * the plain name does; none is put where it names (before, each was: a forged sync record, a message that would go
     * back and forth).
     */
    @Test
    void aBatchNamingTheQueueManagersOwnQueuesByAQualifiedNameGoesToTheDeadLetterQueueWithTheReason()
            throws Exception {
        CoreLink partner = openAsQm1();
        String sync = ChannelConfiguration.SYNC_QUEUE;
        partner.write(new Frame.ChannelMessage(ChannelServers.addressed("QM2", "QM2/" + sync, "qualified")));
        partner.write(new Frame.ChannelMessage(ChannelServers.addressed("", sync, "no queue manager")));
        partner.write(new Frame.ChannelMessage(ChannelServers.addressed("HERE", "QM1", "through an alias of QM2")));
        partner.write(new Frame.ChannelMessage(forQm2("ORDERS", "an order")));
        partner.call(id -> new Frame.ChannelEndBatch(id, 4, 1), ChannelServers.EXPECTED_MS);

        Session inside = servers.connect(qm2.server().vmUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertEquals("an order", ((TextMessage) ChannelServers.next(inside.createConsumer(
                inside.createQueue("ORDERS")))).getText());
        MessageConsumer dead = inside.createConsumer(inside.createQueue(DeadLetters.QUEUE));
        Message qualified = ChannelServers.next(dead);
        assertEquals("qualified", ((TextMessage) qualified).getText());
        assertEquals("Channel: its transmission header names the queue 'QM2/" + ChannelConfiguration.SYNC_QUEUE
                + "', which holds a '/': a queue's name holds none (the queue manager goes in "
                + TransmissionHeader.QUEUE_MANAGER + "), and no Wharf queue manager writes one. Check the sending"
                + " queue manager (its version)", qualified.getStringProperty(DeadLetters.REASON_PROPERTY));
        Message empty = ChannelServers.next(dead);
        assertEquals("Channel: its transmission header names the queue manager '', which is no queue manager's name"
                + " (one is not empty and holds no '/'), and no Wharf queue manager writes one. Check the sending queue"
                + " manager (its version)", empty.getStringProperty(DeadLetters.REASON_PROPERTY));
        Message alias = ChannelServers.next(dead);
        assertEquals("HERE/QM1", alias.getStringProperty(DeadLetters.QUEUE_PROPERTY));
        assertTrue(alias.getStringProperty(DeadLetters.REASON_PROPERTY).startsWith("Channel: 'QM1' is a"
                + " transmission queue of queue manager QM2, which takes only messages that queue manager addresses to"
                + " another"), alias.getStringProperty(DeadLetters.REASON_PROPERTY));
        Receive.nothingMore(dead);
        assertEquals(0, qm2.server().management().queue("QM1").depth(), "put on the transmission queue");
        assertEquals(1, qm2.server().management().queue(ChannelConfiguration.SYNC_QUEUE).depth(),
                "a forged sync record beside TO.QM2's");
    }

    /**
     * A partner's message whose JMSDestination names the queue of its transmission header as a topic of that name (no
     * Wharf sender writes it so): put on the queue, as the header says and as the partner's user may send, never
     * published, which would take the publish permission (and a hierarchy partner's checks) that the channel's send
     * permission on the queue does not give. A subscriber to the topic gets nothing.
     */
    @Test
    void aMessageWhoseDestinationNamesItsQueueAsATopicIsPutOnTheQueueNotPublished() throws Exception {
        Session inside = servers.connect(qm2.server().vmUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer subscriber = inside.createConsumer(inside.createTopic("ORDERS"));
        CoreLink partner = openAsQm1();
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.TEXT;
        m.body = "an order, as a topic".getBytes(StandardCharsets.UTF_8);
        m.persistent = true;
        m.messageId = "ID:" + UUID.randomUUID();
        m.destination = WireDestination.topic("ORDERS");
        m.properties.put(TransmissionHeader.QUEUE_MANAGER, "QM2");
        m.properties.put(TransmissionHeader.QUEUE, "ORDERS");
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
        m.encode(out);
        partner.write(new Frame.ChannelMessage(out));
        partner.call(id -> new Frame.ChannelEndBatch(id, 1, 1), ChannelServers.EXPECTED_MS);

        MessageConsumer orders = inside.createConsumer(inside.createQueue("ORDERS"));
        Message order = ChannelServers.next(orders);
        assertEquals("an order, as a topic", ((TextMessage) order).getText());
        assertTrue(order.getJMSDestination() instanceof Queue, String.valueOf(order.getJMSDestination()));
        Receive.nothingMore(subscriber);
    }

    /**
     * Issue 34's hostile partner that replays an old sequence number: once batch 1 is committed, the same message sent
     * again as batch 1, and as batch 2 at batch 1's sequence number, is refused, naming the numbers the receiver
     * expects, and put nowhere; the batch in step after it is taken.
     */
    @Test
    void aPartnerReplayingACommittedBatchOrItsSequenceNumberIsRefusedAndNothingIsPutTwice() throws Exception {
        CoreLink partner = openAsQm1();
        ByteBuf order = forQm2("ORDERS", "an order");
        partner.write(new Frame.ChannelMessage(order.retainedDuplicate()));
        partner.call(id -> new Frame.ChannelEndBatch(id, 1, 1), ChannelServers.EXPECTED_MS);

        partner.write(new Frame.ChannelMessage(order.retainedDuplicate())); // the same bytes, the same message id
        ClientException sameBatch = assertThrows(ClientException.class,
                () -> partner.call(id -> new Frame.ChannelEndBatch(id, 1, 1), ChannelServers.EXPECTED_MS));
        assertEquals("Queue manager QM2 did not commit batch 1 of channel 'TO.QM2': Channel 'TO.QM2' sent batch 1"
                + " ending at sequence number 1, but its receiver expects batch 2 ending at 2: the sender's sequence is"
                + " out of step. Start the channel again (it takes the receiver's).", sameBatch.getMessage());
        partner.write(new Frame.ChannelMessage(order));
        ClientException oldSequence = assertThrows(ClientException.class,
                () -> partner.call(id -> new Frame.ChannelEndBatch(id, 1, 2), ChannelServers.EXPECTED_MS));
        assertTrue(oldSequence.getMessage().contains("sent batch 2 ending at sequence number 1, but its receiver"
                + " expects batch 2 ending at 2"), oldSequence.getMessage());
        partner.write(new Frame.ChannelMessage(forQm2("ORDERS", "the next order")));
        partner.call(id -> new Frame.ChannelEndBatch(id, 2, 2), ChannelServers.EXPECTED_MS); // in step: taken

        Session inside = servers.connect(qm2.server().vmUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = inside.createConsumer(inside.createQueue("ORDERS"));
        assertEquals("an order", ((TextMessage) ChannelServers.next(orders)).getText());
        assertEquals("the next order", ((TextMessage) ChannelServers.next(orders)).getText());
        Receive.nothingMore(orders);
        Receive.nothingMore(inside.createConsumer(inside.createQueue(DeadLetters.QUEUE)));
        assertEquals(1, qm2.server().management().queue(ChannelConfiguration.SYNC_QUEUE).depth(),
                "one sync record, of batch 2");
    }

    @Test
    void aChannelsConnectionCarriesNoSessions() throws Exception {
        CoreLink partner = openAsQm1();
        ClientException refused = assertThrows(ClientException.class, () -> partner.call(
                id -> new Frame.CreateSession(id, 1, false, 1), ChannelServers.EXPECTED_MS));
        assertTrue(refused.getMessage().contains("This connection carries a channel from another queue manager, and a"
                + " channel's connection carries that channel alone: a session is refused on it."), refused.getMessage());
        partner.write(new Frame.ChannelMessage(forQm2("ORDERS", "an order"))); // the channel goes on
        partner.call(id -> new Frame.ChannelEndBatch(id, 1, 1), ChannelServers.EXPECTED_MS);
    }

    @Test
    void aBatchLongerThanAnySendersClosesThePartnerAndNothingOfItIsPut() throws Exception {
        CoreLink partner = openAsQm1();
        int count = ChannelConfiguration.MAX_BATCH_SIZE + 1;
        ClientException closed = assertThrows(ClientException.class, () -> {
            for (int i = 0; i < count; i++) {
                partner.write(new Frame.ChannelMessage(forQm2("ORDERS", "order " + i)));
            }
            partner.call(id -> new Frame.ChannelEndBatch(id, count, 1), ChannelServers.EXPECTED_MS);
        });
        assertClosedFor(closed, "more than " + ChannelConfiguration.MAX_BATCH_SIZE + " messages in one batch");
        theTrueSenderRunsTheChannel();
    }

    @Test
    void batchesEndedFasterThanTheyCommitPastASendersPipelineCloseThePartner() throws Exception {
        CoreLink partner = openAsQm1();
        List<PendingRequests.Request> ended = new ArrayList<>();
        for (int batch = 1; batch <= 200; batch++) { // empty batches, each in step: each commits a sync record
            long id = batch;
            ended.add(partner.send(requestId -> new Frame.ChannelEndBatch(requestId, 0, id)));
        }
        ClientException closed = assertThrows(ClientException.class, () -> {
            for (PendingRequests.Request request : ended) {
                partner.await(request, ChannelServers.EXPECTED_MS);
            }
        });
        assertClosedFor(closed, "batches ended and not yet answered (more than a sender has on the way");
        theTrueSenderRunsTheChannel();
    }

    /**
     * The server closed the partner's connection: the client read the reason, or, when the close overtook the error
     * frame, only that the connection was lost; either way the audit log names what the partner sent.
     */
    private void assertClosedFor(ClientException closed, String what) {
        String m = closed.getMessage();
        assertTrue(m.contains("closed receiver channel 'TO.QM2': its partner sent") && m.contains(what)
                || m.contains("was lost"), m);
        assertTrue(audit.messages().stream().anyMatch(l -> l.startsWith("REFUSED") && l.contains("channel 'TO.QM2'")
                && l.contains(what)), String.join("\n", audit.lines()));
    }

    /** QM1's sender opens the channel the hostile partner held and moves a message. */
    private void theTrueSenderRunsTheChannel() throws Exception {
        TestServer qm1 = servers.start(c -> c.name("QM1").autoCreate(false)
                        .queue(QueueDefinition.transmissionQueue("QM2"))
                        .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                ChannelDefinition.sender("TO.QM2", qm2.server().tcpUrl(), "QM2", null, null).withTimes(50, 60_000));
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        onQm1.createProducer(onQm1.createQueue("ORDERS")).send(onQm1.createTextMessage("through the channel"));
        Session onQm2 = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        assertEquals("through the channel", ((TextMessage) ChannelServers.next(orders)).getText());
        Receive.nothingMore(orders); // nothing of the hostile partner's batches
    }
}
