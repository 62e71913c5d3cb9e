package org.wharfmq.server.channels;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.it.Receive;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code wharf admin stop channel} on the receiving queue manager (IBM MQ's STOP CHANNEL on a receiver): the partner's
 * session ends, its sender retries (its messages wait on its transmission queue) and is refused, naming the channel
 * and the fix, until {@code start channel} there, across a restart too; then what waited arrives once.
 */
class ChannelReceiverStopTest {

    private final ChannelPair pair = new ChannelPair();

    @AfterEach
    void stop() throws Exception {
        pair.close();
    }

    @Test
    void aStoppedReceiverEndsItsPartnersSessionAndRefusesItUntilStartedThenTheMessagesThatWaitedArriveOnce()
            throws Exception {
        TestServer qm1 = pair.start(UnaryOperator.identity()).qm1;
        TestServer qm2 = pair.qm2;
        String url1 = qm1.server().tcpUrl();
        String url2 = qm2.server().tcpUrl();
        pair.sendOrders(0, 3);
        try (Connection before = new WharfConnectionFactory(url2).createConnection()) { // not across QM2's restart
            before.start();
            Session s = before.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer orders = s.createConsumer(s.createQueue("ORDERS"));
            for (int i = 0; i < 3; i++) {
                assertEquals("order " + i, ((TextMessage) ChannelServers.next(orders)).getText());
            }
        }
        awaitState(url2, "RUNNING");

        assertEquals("Channel TO.QM2 stopped (its partner's session ends; the sender retries until it is started)\n",
                AdminCli.ok(url2, "stop", "channel", "TO.QM2"));
        JsonNode receiver = ChannelDefinitionAdminTest.status(url2, "TO.QM2");
        assertEquals("STOPPED", receiver.get("state").asText());
        assertEquals("operator", receiver.get("stopCause").asText());
        assertEquals("an operator stopped it; 'wharf admin start channel TO.QM2' starts it (its sender retries until"
                + " then)", receiver.get("reason").asText());
        assertTrue(AdminCli.ok(url2, "display", "chstatus").contains("\nChannel TO.QM2 stopped: an operator stopped"
                + " it; 'wharf admin start channel TO.QM2' starts it (its sender retries until then)\n"));

        pair.sendOrders(3, 5); // the sender found its session ended at once; it is refused when it tries again
        awaitState(url1, "RETRYING");
        assertEquals(2, qm1.server().queueManager().queue("QM2").depth(), "they wait on the transmission queue");
        try (CoreLink link = CoreLink.open(url2, Map.of(), null, null, "a partner", 0, 5_000)) {
            ClientException refused = assertThrows(ClientException.class, () -> link.call(id -> new Frame.ChannelOpen(
                    id, "TO.QM2", "QM1", true, Frame.ChannelOpen.NO_RESET), 5_000));
            assertEquals("Receiver channel 'TO.QM2' of queue manager QM2 is stopped by an operator: its sender retries"
                    + " until it is started ('wharf admin start channel TO.QM2' on QM2).", refused.getMessage());
        }

        qm2.restart(); // it stays stopped
        url2 = qm2.server().tcpUrl();
        assertEquals("STOPPED", ChannelDefinitionAdminTest.status(url2, "TO.QM2").get("state").asText());
        assertEquals("Channel TO.QM2 started (its sender connects at its next retry)\n",
                AdminCli.ok(url2, "start", "channel", "TO.QM2"));
        String again = AdminCli.refused(url2, "start", "channel", "TO.QM2"); // its sender may have connected
        assertTrue(again.startsWith("Receiver channel TO.QM2 is RUNNING (its partner is connected), not stopped:"
                + " nothing to start.") || again.startsWith("Receiver channel TO.QM2 is INACTIVE (it accepts its"
                + " partner, which is not connected now), not stopped: nothing to start."), again);
        MessageConsumer orders = pair.ordersOnQm2();
        for (int i = 3; i < 5; i++) {
            assertEquals("order " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        awaitTransmissionQueueEmpty();
        Receive.nothingMore(orders);
    }

    @Test
    void aReceiverStoppedInTheMiddleOfAPersistentBatchLosesNothingAndDoublesNothing() throws Exception {
        TestServer qm1 = pair.start(sender -> sender.withBatchSize(5)).qm1;
        String url1 = qm1.server().tcpUrl();
        String url2 = pair.qm2.server().tcpUrl();
        CountDownLatch prepared = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean once = new AtomicBoolean();
        pair.qm1Channels[0].hooks("TO.QM2", () -> {
            if (once.compareAndSet(false, true)) {
                prepared.countDown(); // the batch's messages are on their way, its end not yet
                try {
                    release.await(ChannelServers.EXPECTED_MS, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, () -> { });
        pair.sendOrders(0, 5);
        assertTrue(prepared.await(ChannelServers.EXPECTED_MS, TimeUnit.MILLISECONDS));
        AdminCli.ok(url2, "stop", "channel", "TO.QM2");
        // the stop ends the session on QM2's event loop, after its answer: released before, the batch would commit
        ChannelServers.await(() -> !pair.qm2Channels[0].receiverRunning("TO.QM2"), "QM2 to end the sender's session");
        release.countDown(); // the batch ends on a session the receiver has ended: the sender has it in doubt
        awaitState(url1, "RETRYING");

        AdminCli.ok(url2, "start", "channel", "TO.QM2"); // the sender resolves its batch with the receiver, once
        MessageConsumer orders = pair.ordersOnQm2();
        for (int i = 0; i < 5; i++) {
            assertEquals("order " + i, ((TextMessage) ChannelServers.next(orders)).getText());
        }
        awaitTransmissionQueueEmpty();
        assertTrue(qm1.server().management().preparedBranches().isEmpty(), "nothing left in doubt");
        Receive.nothingMore(orders);
    }

    /**
     * A sender whose batch the receiver committed waits for more messages, up to its disconnect interval, when the
     * receiver is stopped: it goes to RETRYING at once, not at its next message. (Released before the stop ended the
     * session, the hook's batch above meets this case.) Its first retry is a minute away, so RETRYING stays to be seen.
     */
    @Test
    void aSenderWaitingForMessagesSeesItsSessionEndedAtOnceAndRetries() throws Exception {
        TestServer qm1 = pair.start(sender -> sender.withTimes(60_000, 60_000)).qm1;
        pair.sendOrders(0, 3);
        awaitTransmissionQueueEmpty(); // confirmed: the sender waits for more, up to its disconnect interval
        awaitState(qm1.server().tcpUrl(), "RUNNING");

        AdminCli.ok(pair.qm2.server().tcpUrl(), "stop", "channel", "TO.QM2");
        awaitState(qm1.server().tcpUrl(), "RETRYING"); // at once: not at its next message, nor in a minute
    }

    /** The same while it waits in a stream of non-persistent messages sent outside the batches (FAST). */
    @Test
    void aSenderStreamingNonPersistentMessagesSeesItsSessionEndedAtOnceAndRetries() throws Exception {
        TestServer qm1 = pair.start(sender -> sender.withTimes(60_000, 60_000)).qm1;
        ChannelServers.sendOrders(qm1.server().tcpUrl(), 0, 1, DeliveryMode.NON_PERSISTENT); // outside the batches
        assertEquals("order 0", ((TextMessage) ChannelServers.next(pair.ordersOnQm2())).getText());
        awaitTransmissionQueueEmpty(); // confirmed: the sender waits in its stream, up to its disconnect interval

        AdminCli.ok(pair.qm2.server().tcpUrl(), "stop", "channel", "TO.QM2");
        awaitState(qm1.server().tcpUrl(), "RETRYING"); // at once: not at its next message, nor in a minute
    }

    /** Asks QM1 for its transmission queue's depth until it is 0: the batch's removal committed, never sent again. */
    private void awaitTransmissionQueueEmpty() {
        ChannelServers.await(() -> pair.qm1.server().queueManager().queue("QM2").depth() == 0,
                "QM1's transmission queue to be empty");
    }

    /** Asks the queue manager at {@code url} for channel TO.QM2's state until it is {@code state}. */
    private static void awaitState(String url, String state) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ChannelServers.EXPECTED_MS);
        String now = ChannelDefinitionAdminTest.status(url, "TO.QM2").get("state").asText();
        while (!now.equals(state) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(10_000_000);
            now = ChannelDefinitionAdminTest.status(url, "TO.QM2").get("state").asText();
        }
        assertEquals(state, now);
    }
}
