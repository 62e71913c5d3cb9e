package org.wharfmq.server.channels;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.QueueDefinition;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A partner in a publish/subscribe hierarchy that sends proxy subscription sets without end, each unlike the last (a
 * real client over QM2's listener opening QM2's receiver as QM1, its child, and sending a set per batch): QM2 takes
 * as many as its receiver's maxSubscriptionSetsPerMinute (1 here) and refuses the batch with the next, telling the
 * partner why and the fix, with one log line however many it refuses; the set it took made the proxy subscription.
 */
class SubscriptionSetFloodTest {

    private final ChannelServers servers = new ChannelServers();
    private PubSubHierarchy qm2Hierarchy;
    private LogCapture log;

    @AfterEach
    void stop() throws Exception {
        servers.close();
        if (log != null) {
            log.close();
        }
    }

    /** A batch of one set, QM1's filter {@code filter}, as batch {@code batch}; the receiver's answer. */
    private static void sendSet(CoreLink partner, long batch, String filter) throws ClientException {
        WireMessage set = HierarchyMessages.subscriptionSet("QM1",
                WireDestination.queue(HierarchyMessages.CONTROL_QUEUE), List.of(filter));
        set.messageId = "ID:" + UUID.randomUUID();
        set.properties.put(TransmissionHeader.QUEUE_MANAGER, "QM2");
        set.properties.put(TransmissionHeader.QUEUE, HierarchyMessages.CONTROL_QUEUE);
        ByteBuf bytes = ByteBufAllocator.DEFAULT.buffer();
        set.encode(bytes);
        partner.write(new Frame.ChannelMessage(bytes));
        partner.call(id -> new Frame.ChannelEndBatch(id, batch, batch), ChannelServers.EXPECTED_MS);
    }

    /** QM1's proxy subscriptions on QM2, as the queue manager lists them. */
    private static List<String> proxiesOfQm1(TestServer qm2) {
        return qm2.server().management().subscriptions().stream().map(s -> s.name())
                .filter(n -> n != null && HierarchyMessages.isProxyOf(n, "QM1")).toList();
    }

    @Test
    void aPartnerSendingSetsFasterThanTheReceiverTakesIsRefusedSayingWhyAndLoggedOnce() throws Exception {
        log = LogCapture.of(ReceiverPuts.class.getName());
        TestServer qm2 = servers.keep(TestServer.start(c -> c.name("QM2").autoCreate(false)
                        .queue(QueueDefinition.transmissionQueue("QM1")),
                config -> {
                    ChannelsPlugin channels = new ChannelsPlugin(new ChannelSettings(List.of(
                            ChannelDefinition.receiver("QM1.TO.QM2", null, "QM1")
                                    .withMaxSubscriptionSetsPerMinute(1))));
                    qm2Hierarchy = new PubSubHierarchy(new HierarchySettings(null, List.of("QM1")), channels);
                    return WharfServer.builder(config).plugins(qm2Hierarchy, channels).start();
                }));
        CoreLink partner = servers.keep(CoreLink.open(qm2.server().tcpUrl(), Map.of(), null, null, "hostile", 0,
                5_000));
        partner.call(id -> new Frame.ChannelOpen(id, "QM1.TO.QM2", "QM1", false, Frame.ChannelOpen.NO_RESET),
                ChannelServers.EXPECTED_MS);
        sendSet(partner, 1, "churn/1");

        // a set a minute: the next is refused for the next 60 s, however loaded the machine
        ClientException refused = assertThrows(ClientException.class, () -> sendSet(partner, 2, "churn/2"));
        assertEquals(ErrorCode.ILLEGAL_STATE, refused.code(), "not CHANNEL_STOPPED: a sender retries the batch");
        String why = "queue manager QM2 refused a proxy subscription set of queue manager QM1: sets come over receiver"
                + " channel 'QM1.TO.QM2' faster than its maxSubscriptionSetsPerMinute of 1 (a minute, in bursts of as"
                + " many; each set remakes up to maxProxySubscriptions durable subscriptions here). The batch that"
                + " holds it is refused and taken when the sender sends it again (after its retryMillis), the set with"
                + " it. Find what makes and ends subscriptions so often on queue manager QM1, or raise"
                + " maxSubscriptionSetsPerMinute of receiver channel 'QM1.TO.QM2' on queue manager QM2 ('wharf admin"
                + " alter channel QM1.TO.QM2 --set maxSubscriptionSetsPerMinute=N').";
        assertEquals("Queue manager QM2 did not commit batch 2 of channel 'QM1.TO.QM2' (attempt 1 of 10): " + why,
                refused.getMessage());
        for (int again = 2; again <= 5; again++) { // as a sender that retries at once would
            assertThrows(ClientException.class, () -> sendSet(partner, 2, "churn/2"));
        }
        assertEquals(List.of(why + " (logged once until a set is taken again)"), log.messages());

        // the set it took made QM1's proxy subscription; the refused ones made none
        List<String> taken = List.of(HierarchyMessages.proxyName("QM1", "churn/1"));
        ChannelServers.await(() -> taken.equals(proxiesOfQm1(qm2)), "QM1's first set applied: " + taken);
        assertEquals(1, qm2Hierarchy.status().partners().get(0).subscriptionSetsReceived());
    }
}
