package org.wharfmq.server.channels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.it.TcpProxy;
import org.wharfmq.server.metrics.MetricsPlugin;

import javax.jms.MessageConsumer;
import javax.jms.TextMessage;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code wharf admin stop channel} on a sender whose batch is in doubt (its receiver committed it, its confirmation
 * held on the way back by a {@link TcpProxy}) says so, naming the batch, its messages and how it is settled, and
 * {@code display chstatus} and the metrics show it; a stop with nothing on its way says nothing of doubt. Started
 * again, the channel settles the batch with its receiver: nothing lost, nothing twice.
 */
class ChannelStopInDoubtTest {

    private final ChannelPair pair = new ChannelPair();

    @AfterEach
    void stop() throws Exception {
        pair.close();
    }

    @Test
    void aSenderStoppedWithABatchUnconfirmedSaysItIsInDoubtAndAStopWithNoneSaysNothingOfDoubt() throws Exception {
        TcpProxy proxy = pair.keep(TcpProxy.start(pair.startQm2()));
        HttpPlugin http = new HttpPlugin(HttpSettings.on("127.0.0.1"));
        pair.startQm1(proxy.url(), sender -> sender.withBatchSize(5).withMaxRetry(500).withHeartbeat(0),
                channels -> List.of(new MetricsPlugin(http.routes(), null, channels, null), http));
        String url1 = pair.qm1.server().tcpUrl();
        MessageConsumer orders = pair.ordersOnQm2();

        pair.sendOrders(0, 1); // batch 1, confirmed: the channel is open
        assertEquals("order 0", ((TextMessage) ChannelServers.next(orders)).getText());
        ChannelServers.await(pair.qm1Channels[0], s -> s.messages() == 1);

        proxy.holdReplies(); // QM2's answers wait in the proxy
        pair.sendOrders(1, 6);
        ChannelServers.await(pair.qm2Channels[0], s -> s.lastBatchId() == 2); // committed on QM2, unconfirmed on QM1
        // as a program reads it (--json): the channel, its transmission queue, the batch it leaves, the description
        JsonNode stop = new ObjectMapper().readTree(AdminCli.ok(url1, "--json", "stop",
                "channel", "TO.QM2")).get("result");
        assertEquals("TO.QM2", stop.path("name").asText(), stop.toString());
        assertEquals("sender", stop.path("type").asText(), stop.toString());
        assertEquals("QM2", stop.path("transmissionQueue").asText(), stop.toString());
        String stopped = stop.path("description").asText() + "\n"; // as wharf admin prints it without --json

        JsonNode status = ChannelDefinitionAdminTest.status(url1, "TO.QM2");
        assertEquals("STOPPED", status.get("state").asText());
        assertTrue(status.get("inDoubt").asBoolean(), status.toString());
        assertEquals(1, status.get("batchesInDoubt").size(), status.toString());
        JsonNode inDoubt = status.get("batchesInDoubt").get(0);
        assertEquals(status.get("batchesInDoubt"), stop.get("batchesInDoubt"), "the stop's answer names the batch");
        assertEquals(2, inDoubt.get("batch").asLong(), inDoubt.toString());
        long messages = inDoubt.get("messages").asLong(); // the orders the channel's thread found delivered
        assertTrue(messages >= 1 && messages <= 5, inDoubt.toString());
        assertEquals(2, inDoubt.get("firstSequence").asLong(), inDoubt.toString());
        assertEquals(1 + messages, inDoubt.get("lastSequence").asLong(), inDoubt.toString());
        String batch = "batch 2 (" + messages + (messages == 1 ? " message, sequence number 2)"
                : " messages, sequence numbers 2 to " + (1 + messages) + ")");
        assertEquals("Channel TO.QM2 stopped with " + batch + " in doubt: its messages stay held on transmission queue"
                + " QM2 until the channel starts again and settles the batch with its receiver; when the receiver"
                + " cannot be asked, 'wharf admin resolve channel TO.QM2 --action commit' if the receiver's LAST BATCH"
                + " is at least 2, --action backout if it is less than 2 (docs/distributed.md, \"Resolving by"
                + " hand\")\n", stopped);
        String shown = AdminCli.ok(url1, "display", "chstatus");
        assertTrue(shown.lines().anyMatch(l -> l.startsWith("TO.QM2 ") && l.contains(" sender ")
                && l.contains(" STOPPED ") && l.contains(" YES ")), "INDOUBT YES: " + shown);
        assertTrue(shown.contains("\nChannel TO.QM2 has " + batch + " in doubt: it settles it with its receiver when it"
                + " runs again; when the receiver cannot be asked, 'wharf admin resolve channel TO.QM2 --action commit'"
                + " if the receiver's LAST BATCH is at least 2, --action backout if it is less than 2.\n"), shown);
        String metrics = ChannelStatusViewsTest.get(http.url() + MetricsPlugin.PATH);
        assertEquals(1.0, ChannelStatusViewsTest.value(metrics, "wharf_channel_in_doubt", "channel=\"TO.QM2\""));
        assertEquals((double) messages, ChannelStatusViewsTest.value(metrics, "wharf_channel_in_doubt_messages",
                "channel=\"TO.QM2\""));

        // the receiver has the batch: started again, the channel commits its removal and does not send it twice
        proxy.releaseReplies(); // to a connection the stop closed
        AdminCli.ok(url1, "start", "channel", "TO.QM2");
        for (int i = 1; i < 6; i++) {
            assertEquals("order " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        // every order confirmed: nothing left on the transmission queue, nothing in doubt
        ChannelServers.await(pair.qm1Channels[0],
                s -> !s.inDoubt() && Long.valueOf(0).equals(s.transmissionQueueDepth()));

        // nothing on its way: the stop says nothing of doubt
        assertEquals("Channel TO.QM2 stopped (its transmission queue keeps what it has not sent)\n",
                AdminCli.ok(url1, "stop", "channel", "TO.QM2"));
        status = ChannelDefinitionAdminTest.status(url1, "TO.QM2");
        assertFalse(status.get("inDoubt").asBoolean(), status.toString());
        assertEquals(0, status.get("batchesInDoubt").size(), status.toString());
        assertFalse(AdminCli.ok(url1, "display", "chstatus").contains("in doubt"));
        metrics = ChannelStatusViewsTest.get(http.url() + MetricsPlugin.PATH);
        assertEquals(0.0, ChannelStatusViewsTest.value(metrics, "wharf_channel_in_doubt", "channel=\"TO.QM2\""));
        assertEquals(0.0, ChannelStatusViewsTest.value(metrics, "wharf_channel_in_doubt_messages",
                "channel=\"TO.QM2\""));
        Receive.nothingMore(orders);
    }
}
