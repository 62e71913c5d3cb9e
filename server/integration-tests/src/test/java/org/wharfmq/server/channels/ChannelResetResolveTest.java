package org.wharfmq.server.channels;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.it.Receive;

import javax.jms.MessageConsumer;
import javax.jms.TextMessage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code wharf admin resolve channel} on a real batch in doubt (the receiving queue manager stopped between the
 * sender's prepare and the receiver's answer, or between the receiver's commit and the sender's), and {@code reset
 * channel}: nothing lost, nothing twice.
 */
class ChannelResetResolveTest {

    private final ChannelPair pair = new ChannelPair();
    private TestServer qm1;
    private TestServer qm2;

    @AfterEach
    void stop() throws Exception {
        pair.close();
    }

    private void start() throws Exception {
        start(sender -> sender.withBatchSize(5));
    }

    private void start(UnaryOperator<ChannelDefinition> sender) throws Exception {
        pair.start(sender);
        qm1 = pair.qm1;
        qm2 = pair.qm2;
    }

    @Test
    void aBatchTheReceiverNeverCommittedIsBackedOutByHandAcrossARestartAndSentAgainOnce() throws Exception {
        start();
        CountDownLatch prepared = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean once = new AtomicBoolean();
        pair.qm1Channels[0].hooks("TO.QM2", () -> {
            if (once.compareAndSet(false, true)) {
                prepared.countDown();
                await(release);
            }
        }, () -> { });
        pair.sendOrders(0, 5); // batch 1: up to five (the commit's messages may reach the queue one by one)
        assertTrue(prepared.await(ChannelServers.EXPECTED_MS, TimeUnit.MILLISECONDS));
        qm2.stop(); // the batch's end never reaches it
        release.countDown();
        AdminCli.ok(qm1.server().tcpUrl(), "stop", "channel", "TO.QM2");
        qm1.restart(); // the channel stays stopped, its batch in doubt restored from the journal
        String url1 = qm1.server().tcpUrl();

        JsonNode status = ChannelDefinitionAdminTest.status(url1, "TO.QM2");
        assertEquals("STOPPED", status.get("state").asText());
        assertTrue(status.get("inDoubt").asBoolean(), status.toString());
        assertEquals(5, status.get("transmissionQueueDepth").asLong(), "held by its prepared removal, still counted");
        assertEquals(1, status.get("batchesInDoubt").size(), "known across the restart: " + status);
        String batch = described(status.get("batchesInDoubt").get(0));
        String shown = AdminCli.ok(url1, "display", "chstatus");
        assertTrue(shown.contains(" YES "), "INDOUBT YES");
        assertTrue(shown.contains("\nChannel TO.QM2 has " + batch + " in doubt: it settles it with its receiver when it"
                + " runs again; when the receiver cannot be asked, 'wharf admin resolve channel TO.QM2 --action commit'"
                + " if the receiver's LAST BATCH is at least 1, --action backout if it is less than 1.\n"), shown);
        assertEquals("Channel 'TO.QM2': the action is commit (the receiver has the batch) or backout (it has not), not"
                + " 'maybe'.", AdminCli.refused(url1, "resolve", "channel", "TO.QM2", "--action", "maybe"));

        assertEquals("Channel 'TO.QM2' has no batch 2 in doubt; in doubt: " + batch + ".",
                AdminCli.refused(url1, "resolve", "channel", "TO.QM2", "--batch", "2", "--action", "backout"));
        assertEquals("Channel TO.QM2: " + batch + " backed out: its messages are back on QM2, sent again when the"
                + " channel starts\n", AdminCli.ok(url1, "resolve", "channel", "TO.QM2", "--action", "backout"));
        status = ChannelDefinitionAdminTest.status(url1, "TO.QM2");
        assertFalse(status.get("inDoubt").asBoolean());
        assertEquals(5, status.get("transmissionQueueDepth").asLong());
        assertEquals("Channel 'TO.QM2' has no batch in doubt: nothing to resolve.",
                AdminCli.refused(url1, "resolve", "channel", "TO.QM2", "--action", "commit"));

        qm2.restart();
        AdminCli.ok(url1, "start", "channel", "TO.QM2");
        MessageConsumer orders = pair.ordersOnQm2();
        for (int i = 0; i < 5; i++) {
            assertEquals("order " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        Receive.nothingMore(orders);
    }

    @Test
    void aBatchTheReceiverCommittedIsCommittedByHandAndNeverSentAgain() throws Exception {
        start();
        CountDownLatch confirmed = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean once = new AtomicBoolean();
        pair.qm1Channels[0].hooks("TO.QM2", () -> { }, () -> {
            if (once.compareAndSet(false, true)) {
                confirmed.countDown();
                await(release);
                throw new IllegalStateException("the test's crash between the receiver's commit and the removal's");
            }
        });
        pair.sendOrders(0, 5);
        assertTrue(confirmed.await(ChannelServers.EXPECTED_MS, TimeUnit.MILLISECONDS));
        qm2.stop(); // the channel cannot ask it what it has
        release.countDown();
        String url1 = qm1.server().tcpUrl();
        assertTrue(AdminCli.refused(url1, "resolve", "channel", "TO.QM2", "--action", "commit").startsWith(
                "Channel 'TO.QM2' is "), "a channel that runs resolves its batch itself");
        AdminCli.ok(url1, "stop", "channel", "TO.QM2");
        JsonNode status = ChannelDefinitionAdminTest.status(url1, "TO.QM2");
        assertTrue(status.get("inDoubt").asBoolean());
        long inBatch = status.get("batchesInDoubt").get(0).get("messages").asLong();

        assertEquals("Channel TO.QM2: " + described(status.get("batchesInDoubt").get(0)) + " committed: its messages"
                + " are removed from QM2\n", AdminCli.ok(url1, "resolve", "channel", "TO.QM2", "--batch", "1",
                "--action", "commit"));
        assertTrue(qm1.server().management().preparedBranches().isEmpty());
        // the batch's orders removed; those of the five the channel had not taken when batch 1 ended wait there
        assertEquals(5 - inBatch, qm1.server().queueManager().queue("QM2").depth());

        pair.sendOrders(5, 8);
        qm2.restart();
        AdminCli.ok(url1, "start", "channel", "TO.QM2");
        MessageConsumer orders = pair.ordersOnQm2();
        for (int i = 0; i < 8; i++) {
            assertEquals("order " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        Receive.nothingMore(orders); // had the batch been backed out, orders 0 to 4 would come again
    }

    @Test
    void aReceiversSequenceNumberIsResetAndTheSenderTakesIt() throws Exception {
        // one batch of two: the commit's messages may reach the queue one by one, so the batch waits for its second
        // instead of ending when the queue is briefly empty
        start(sender -> sender.withBatchSize(2).with(ChannelConfiguration.BATCH_INTERVAL_MILLIS, 60_000L));
        String url1 = qm1.server().tcpUrl();
        String url2 = qm2.server().tcpUrl();
        assertEquals("Channel TO.QM2: sequence number reset to 100 (was 0); its sender takes it when it next starts\n",
                AdminCli.ok(url2, "reset", "channel", "TO.QM2", "--sequence", "100"));
        assertEquals(100, ChannelDefinitionAdminTest.status(url2, "TO.QM2").get("sequence").asLong());

        pair.sendOrders(0, 2);
        MessageConsumer orders = pair.ordersOnQm2();
        assertEquals("order 0", ((TextMessage) ChannelServers.next(orders)).getText());
        assertEquals("order 1", ((TextMessage) ChannelServers.next(orders)).getText());
        awaitSent(2);
        assertEquals(102, ChannelDefinitionAdminTest.status(url2, "TO.QM2").get("sequence").asLong());
        JsonNode sender = ChannelDefinitionAdminTest.status(url1, "TO.QM2");
        assertEquals(102, sender.get("sequence").asLong());
        assertEquals(2, sender.get("messages").asLong());
        assertEquals(1, sender.get("batches").asLong());
        assertTrue(sender.get("bytes").asLong() > 2 * "order 0".length());
        assertEquals("Receiver channel 'TO.QM2' has a partner connected: stop the sender on the partner queue manager"
                + " first, then reset it.", AdminCli.refused(url2, "reset", "channel", "TO.QM2", "--sequence", "5"));
    }

    @Test
    void aSendersResetIsKeptAcrossARestartAndTakenByItsReceiverAtTheNextStartOnly() throws Exception {
        start();
        String url1 = qm1.server().tcpUrl();
        String url2 = qm2.server().tcpUrl();
        pair.sendOrders(0, 2);
        MessageConsumer orders = pair.ordersOnQm2();
        assertEquals("order 0", ((TextMessage) ChannelServers.next(orders)).getText());
        assertEquals("order 1", ((TextMessage) ChannelServers.next(orders)).getText());
        awaitSent(2);
        // one batch or two: the commit's messages may reach the queue one by one
        long batches = ChannelDefinitionAdminTest.status(url1, "TO.QM2").get("batches").asLong();
        assertEquals(batches, ChannelDefinitionAdminTest.status(url2, "TO.QM2").get("lastBatchId").asLong());
        AdminCli.ok(url1, "stop", "channel", "TO.QM2");

        assertEquals("Channel 'TO.QM2': sequence must be 0 or more, not -1.",
                AdminCli.refused(url1, "reset", "channel", "TO.QM2", "--sequence", "-1"));
        assertTrue(AdminCli.refused(url1, "reset", "channel", "TO.NOWHERE", "--sequence", "1").startsWith(
                "No channel named 'TO.NOWHERE' is defined"));
        assertEquals("Channel TO.QM2: sequence number reset to 500; its receiver on the partner queue manager takes it"
                + " when the channel next starts (it is STOPPED)\n",
                AdminCli.ok(url1, "reset", "channel", "TO.QM2", "--sequence", "500"));
        assertEquals(2, ChannelDefinitionAdminTest.status(url2, "TO.QM2").get("sequence").asLong(),
                "the receiver takes it when the channel starts, not before");

        qm1.restart(); // the reset is kept with the channel's stopped state
        url1 = qm1.server().tcpUrl();
        AdminCli.ok(url1, "start", "channel", "TO.QM2");
        pair.sendOrders(2, 3);
        assertEquals("order 2", ((TextMessage) ChannelServers.next(orders)).getText());
        awaitSent(1);
        assertEquals(501, ChannelDefinitionAdminTest.status(url2, "TO.QM2").get("sequence").asLong());
        assertEquals(501, ChannelDefinitionAdminTest.status(url1, "TO.QM2").get("sequence").asLong());
        assertEquals(batches + 1, ChannelDefinitionAdminTest.status(url2, "TO.QM2").get("lastBatchId").asLong(),
                "the batch ids go on: a reset changes the sequence number only");

        // delivered once: a later start of the channel does not take the receiver back to 500
        AdminCli.ok(url1, "stop", "channel", "TO.QM2");
        qm1.restart();
        url1 = qm1.server().tcpUrl();
        AdminCli.ok(url1, "start", "channel", "TO.QM2");
        pair.sendOrders(3, 4);
        assertEquals("order 3", ((TextMessage) ChannelServers.next(orders)).getText());
        awaitSent(1);
        assertEquals(502, ChannelDefinitionAdminTest.status(url2, "TO.QM2").get("sequence").asLong());
        Receive.nothingMore(orders);
    }

    /**
     * Batch 1 of {@code display chstatus --json}'s {@code batchesInDoubt}, as the channel names it: "batch 1
     * (5 messages, sequence numbers 1 to 5)", its messages those of the transaction that the channel's thread found delivered.
     */
    private static String described(JsonNode batch) {
        assertEquals(1, batch.get("batch").asLong(), batch.toString());
        assertEquals(1, batch.get("firstSequence").asLong(), batch.toString());
        long last = batch.get("lastSequence").asLong();
        assertEquals(last, batch.get("messages").asLong(), batch.toString());
        assertTrue(last >= 1 && last <= 5, batch.toString());
        return "batch 1 (" + (last == 1 ? "1 message, sequence number 1)"
                : last + " messages, sequence numbers 1 to " + last + ")");
    }

    /** Polls the count of messages sender TO.QM2 had confirmed since it started, until it is {@code n}. */
    private void awaitSent(long n) {
        ChannelServers.await(() -> pair.qm1Channels[0].messagesSent("TO.QM2") >= n, "TO.QM2 to confirm " + n);
        assertEquals(n, pair.qm1Channels[0].messagesSent("TO.QM2"));
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(ChannelServers.EXPECTED_MS, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the test did not release the channel");
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException("the channel stopped while held by the test");
        }
    }
}
