package org.wharfmq.server.channels;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.MessageLengthLimit;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;

import javax.jms.DeliveryMode;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sender channel whose partner is hostile ({@link FakePartner}: a receiving end speaking the protocol over TCP): it
 * declares the most maxMessageLength there is and answers a batch with a frame claiming 200 MiB. The sender reads no
 * frame longer than a receiver's answers may be (64 KiB), whatever its partner declares, so the queue manager holds
 * none of it: the channel stops, saying why and the fix, its batch kept on the sending queue manager, which goes on.
 */
class ChannelHostileReceiverTest {

    private final ChannelServers servers = new ChannelServers();

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    @Test
    void aPartnerSendingAFrameLongerThanASenderReadsStopsTheChannelNotTheQueueManager() throws Exception {
        FakePartner partner = servers.keep(new FakePartner());
        int claimed = 200 << 20;
        partner.onFrame = (f, connection) -> {
            if (f instanceof Frame.ChannelEndBatch) {
                // its answer: the length prefix of a 200 MiB frame and its first byte
                connection.writeAndFlush(Unpooled.buffer().writeInt(claimed).writeByte(0));
            }
        };
        ChannelsPlugin qm1Channels = new ChannelsPlugin(new ChannelSettings(List.of(ChannelDefinition.sender("TO.QM2",
                partner.url(), "QM2", null, null).withTimes(50, 60_000))));
        TestServer qm1 = servers.keep(TestServer.start(c -> c.name("QM1").autoCreate(false).queue("LOCAL")
                        .queue(QueueDefinition.transmissionQueue("QM2"))
                        .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                c -> WharfServer.builder(c).plugins(qm1Channels).start()));
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer orders = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        orders.send(onQm1.createTextMessage("an order"), DeliveryMode.PERSISTENT, 4, 0);

        ChannelStatus stopped = ChannelServers.awaitStopped(qm1Channels);
        assertEquals(ChannelStatus.PARTNER_BREACH, stopped.stopCause());
        int limit = MessageLengthLimit.frameLimit(ChannelConfiguration.SENDER_MAX_RECEIVE_LENGTH);
        assertEquals("Channel TO.QM2 stopped: its partner at " + partner.url() + " (queue manager QM2, as it names"
                + " itself) sent a frame of " + claimed + " bytes, more than the " + limit + " a sender channel reads"
                + " from its partner (a receiver answers a sender and never sends it a message:"
                + " ChannelConfiguration.SENDER_MAX_RECEIVE_LENGTH, whatever maxMessageLength the partner declares)."
                + " The sender read none of it and closed the connection; the channel's messages stay on its"
                + " transmission queue QM2 (a batch on its way stays in doubt until the channel runs again). Something"
                + " other than a Wharf receiver answers at " + partner.url() + ", or the stream was changed on its way"
                + " (use ssl:// with a verified certificate): check it, then start the channel again on queue manager"
                + " QM1 (wharf admin start channel TO.QM2).", stopped.reason());
        partner.await(Frame.ChannelEndBatch.class);
        assertEquals(1, qm1.server().management().preparedBranches().size(), "the batch waits on QM1, in doubt");

        // the queue manager goes on: its other queues take and give messages
        onQm1.createProducer(onQm1.createQueue("LOCAL")).send(onQm1.createTextMessage("still here"));
        assertEquals("still here", ((javax.jms.TextMessage) ChannelServers.next(
                onQm1.createConsumer(onQm1.createQueue("LOCAL")))).getText());
    }
}
