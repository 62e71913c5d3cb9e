package org.wharfmq.server.channels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.MessageLengthLimit;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.metrics.MetricsPlugin;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;

import javax.jms.DeliveryMode;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sender channel whose partner is hostile ({@link FakePartner}: a receiving end speaking the protocol over TCP).
 * One declares the most maxMessageLength there is and answers a batch with a frame claiming 200 MiB. The sender reads
 * no frame longer than a receiver's answers may be (64 KiB), whatever its partner declares, so the queue manager holds
 * none of it: the channel stops, saying why and the fix, its batch kept on the sending queue manager, which goes on.
 * Another agrees to nonPersistentSpeed fast, keeps the connection alive and never confirms a message sent outside the
 * batches: past fastConfirmTimeoutMillis the sender closes the connection, saying why and the fix, and retries.
 */
class ChannelHostileReceiverTest {

    private static final ObjectMapper JSON = new ObjectMapper();
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
                c -> WharfServer.builder(c).plugins(qm1Channels, new AdminPlugin(qm1Channels.adminCommands()))
                        .start()));
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer orders = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        orders.send(onQm1.createTextMessage("an order"), DeliveryMode.PERSISTENT, 4, 0);

        ChannelStatus stopped = ChannelServers.awaitStopped(qm1Channels);
        assertEquals(ChannelStatus.PARTNER_BREACH, stopped.stopCause());
        int limit = MessageLengthLimit.frameLimit(ChannelConfiguration.SENDER_MAX_RECEIVE_LENGTH);
        String reason = "its partner at " + partner.url() + " (queue manager QM2, as it names"
                + " itself) sent a frame of " + claimed + " bytes, more than the " + limit + " a sender channel reads"
                + " from its partner (a receiver answers a sender and never sends it a message:"
                + " ChannelConfiguration.SENDER_MAX_RECEIVE_LENGTH, whatever maxMessageLength the partner declares)."
                + " The sender read none of it and closed the connection; the channel's messages stay on its"
                + " transmission queue QM2 (a batch on its way stays in doubt until the channel runs again). Something"
                + " other than a Wharf receiver answers at " + partner.url() + ", or the stream was changed on its way"
                + " (use ssl:// with a verified certificate): check it, then start the channel again on queue manager"
                + " QM1 (wharf admin start channel TO.QM2).";
        assertEquals(reason, stopped.reason());
        // the line under the table says "Channel TO.QM2 stopped: " once, before the reason
        String shown = AdminCli.ok(qm1.server().tcpUrl(), "display", "chstatus");
        assertTrue(shown.contains("\nChannel TO.QM2 stopped: " + reason + "\n"), shown);
        partner.await(Frame.ChannelEndBatch.class);
        assertEquals(1, qm1.server().management().preparedBranches().size(), "the batch waits on QM1, in doubt");

        // the queue manager goes on: its other queues take and give messages
        onQm1.createProducer(onQm1.createQueue("LOCAL")).send(onQm1.createTextMessage("still here"));
        assertEquals("still here", ((javax.jms.TextMessage) ChannelServers.next(
                onQm1.createConsumer(onQm1.createQueue("LOCAL")))).getText());
    }

    @Test
    void aPartnerThatNeverConfirmsFastMessagesStopsTheChannelWhichRetries() throws Exception {
        FakePartner partner = servers.keep(new FakePartner());
        partner.fastNonPersistent = true; // and answers no CHANNEL_FAST_CONFIRM (onFrame's default), alive all along
        ChannelsPlugin[] qm1Channels = new ChannelsPlugin[1];
        HttpPlugin http = new HttpPlugin(HttpSettings.on("127.0.0.1"));
        TestServer qm1 = servers.keep(TestServer.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)), config -> {
            qm1Channels[0] = new ChannelsPlugin(new ChannelSettings(List.of(ChannelDefinition.sender("TO.QM2",
                    partner.url(), "QM2", null, null).withTimes(50, 60_000)
                    .withFastConfirmTimeout(2_000)))); // the second partner answers well within it
            return WharfServer.builder(config).plugins(qm1Channels[0], new AdminPlugin(qm1Channels[0].adminCommands()),
                    new MetricsPlugin(http.routes(), null, qm1Channels[0], null), http).start();
        }));
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer orders = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        orders.send(onQm1.createTextMessage("an order"), DeliveryMode.NON_PERSISTENT, 4, 0);
        partner.await(Frame.ChannelFastMessage.class);
        partner.await(Frame.ChannelFastConfirm.class); // never answered

        ChannelStatus stopped = ChannelServers.await(qm1Channels[0],
                s -> ChannelStatus.FAST_UNCONFIRMED.equals(s.stopCause()));
        String reason = stopped.reason();
        String start = "its partner at " + partner.url() + " (queue manager QM2, as it names"
                + " itself) left 1 non-persistent messages sent outside the batches (nonPersistentSpeed fast)"
                + " unconfirmed, the oldest confirmation asked ";
        assertTrue(reason.startsWith(start), reason);
        assertTrue(reason.contains(" ms ago, though the connection stays alive: more than the channel's"
                + " fastConfirmTimeoutMillis of 2000 ms. Until they are confirmed they hold the channel's credit (50"
                + " messages), so its non-persistent messages would stop flowing. The sender closed the connection and"
                + " retries (retryMillis); those messages are dropped, as nonPersistentSpeed fast allows (never sent"
                + " twice), and the rest wait on transmission queue QM2. Check receiver channel TO.QM2 on queue manager"
                + " QM2 (its log) and what answers at " + partner.url() + "; to send non-persistent messages in the"
                + " batches instead, set nonPersistentSpeed normal ('wharf admin alter channel TO.QM2"
                + " --non-persistent-speed normal' on queue manager QM1)."), reason);
        // it retries as for any other stop, the cause shown meanwhile where operators look
        assertTrue(List.of("RETRYING", "WAITING").contains(stopped.state()), stopped.state());
        String url = qm1.server().tcpUrl();
        JsonNode shown = JSON.readTree(AdminCli.ok(url, "--json", "display", "chstatus")).get("result").get(0);
        assertEquals(ChannelStatus.FAST_UNCONFIRMED, shown.get("stopCause").asText(), shown.toString());
        assertTrue(shown.get("reason").asText().startsWith(start), shown.toString());
        assertTrue(AdminCli.ok(url, "display", "chstatus").contains("\nChannel TO.QM2 stopped: " + start),
                "the line under the table");
        String metrics = ChannelStatusViewsTest.get(http.url() + MetricsPlugin.PATH);
        assertEquals(1.0, ChannelStatusViewsTest.value(metrics, "wharf_channel_stop_cause", "channel=\"TO.QM2\"",
                "cause=\"fast_unconfirmed\""));

        // a partner that confirms again: the next message opens the channel anew and goes, the cause cleared
        partner.onFrame = (f, connection) -> {
            if (f instanceof Frame.ChannelFastConfirm confirm) {
                connection.writeAndFlush(new Frame.Ok(confirm.requestId()));
            }
        };
        orders.send(onQm1.createTextMessage("another order"), DeliveryMode.NON_PERSISTENT, 4, 0);
        partner.await(Frame.ChannelOpen.class);
        partner.await(Frame.ChannelFastMessage.class);
        ChannelStatus running = ChannelServers.await(qm1Channels[0], s -> s.reason() == null
                && "fast".equals(s.nonPersistentSpeed()));
        assertNull(running.stopCause());
        assertEquals(0L, ChannelServers.await(qm1Channels[0], s -> Long.valueOf(0).equals(s.transmissionQueueDepth()))
                .transmissionQueueDepth(), "the first dropped, the second confirmed");
    }
}
