package org.wharfmq.server.channels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.it.MemberNetwork;
import org.wharfmq.server.it.NamespaceNetwork;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.store.ServerProcess;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntPredicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 34's connection cut in the middle of batches, made in the kernel's network rather than by a proxy: QM1 and QM2
 * as processes, each in a network namespace of its own ({@link NamespaceNetwork}), joined by the sender/receiver pair
 * QM1.TO.QM2 over the namespaces' switch; the test's producer (on QM1), consumer (on QM2) and {@code wharf admin} reach
 * each over a link of its own, which the cut leaves up. Right after a burst of messages is committed on QM1, QM1's
 * port on the switch goes down, as a pulled cable: nothing is refused or reset, packets go nowhere. Each end's
 * heartbeat (1 s, so 3 s of silence) declares the other dead: the sender goes RETRYING with its batches in doubt or
 * back on its transmission queue, the receiver INACTIVE ({@code display chstatus}, the barriers). More messages wait
 * on the transmission queue meanwhile; the link comes back up, and the channel RUNNING again at both ends.
 * <ol>
 *   <li>Persistent messages, in batches of 10, two on the way at once: every one arrives exactly once, in order.</li>
 *   <li>Nine non-persistent messages to one persistent, nonPersistentSpeed FAST agreed (outside the batches, or put
 *   at once out of a batch): the persistent ones exactly once and in order, the non-persistent ones at most once and
 *   in order, and those that waited through the cut arrive.</li>
 * </ol>
 * Skipped (an assumption naming why) where network namespaces cannot be made: not root, or no {@code ip} (iproute2;
 * .ci/run installs it).
 */
@Tag("slow")
class ChannelNamespaceCutTest {

    private static final String CHANNEL = "QM1.TO.QM2";
    private static final String[] IDS = {"qm1", "qm2"};
    private static final int QM1 = 0;
    private static final int QM2 = 1;
    private static final int HEARTBEAT_MILLIS = 1_000;
    /** What each end logs when its heartbeat finds the other silent (Heartbeat.MISSED_BEFORE_DEAD intervals). */
    private static final String FOUND_DEAD = "nothing received for " + 3 * HEARTBEAT_MILLIS + " ms";
    /** Two JVMs starting at once on a loaded machine. */
    private static final long START_SECONDS = 180;
    /** How long a status, a log line or a message that is expected may take on a loaded machine. */
    private static final Duration EXPECTED = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;
    private final List<ServerProcess> started = new ArrayList<>();

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void aLinkCutInTheKernelDuringBatchesIsFoundByTheHeartbeatsAndTheChannelRecoversWhenItHeals() throws Exception {
        String unavailable = NamespaceNetwork.whyUnavailable();
        Assumptions.assumeTrue(unavailable == null, unavailable);
        long began = System.nanoTime();
        int[] ports = FreePorts.take(2);
        try (NamespaceNetwork network = NamespaceNetwork.open(dir, IDS)) {
            try {
                Path security = Files.writeString(dir.resolve("security.yaml"), "allowAnonymous: true\n");
                ServerProcess qm2 = launch(network, QM2, ports[QM2], "name: QM2\nautoCreate: false\nsecurity:\n  file: "
                        + security + "\nqueues:\n  - name: ORDERS\n"
                        + "channels:\n  - name: " + CHANNEL + "\n    type: receiver\n    partnerQueueManager: QM1\n");
                ServerProcess qm1 = launch(network, QM1, ports[QM1], "name: QM1\nautoCreate: false\nsecurity:\n  file: "
                        + security + "\nqueues:\n  - name: QM2\n    usage: transmission\n"
                        + "  - name: ORDERS\n    type: remote\n    remoteQueue: ORDERS\n    remoteQueueManager: QM2\n"
                        + "channels:\n  - name: " + CHANNEL + "\n    type: sender\n"
                        + "    connection: tcp://" + MemberNetwork.host(IDS[QM2]) + ":" + ports[QM2] + "\n"
                        + "    transmissionQueue: QM2\n    batchSize: 10\n    pipelineLength: 2\n"
                        + "    heartbeatMillis: " + HEARTBEAT_MILLIS + "\n    connectTimeoutMillis: 2000\n"
                        + "    retryMillis: 100\n    maxRetryMillis: 1000\n");
                qm2.awaitReady(START_SECONDS);
                qm1.awaitReady(START_SECONDS);
                try (Connection onQm1 = new WharfConnectionFactory(qm1.url()).createConnection();
                     Connection onQm2 = new WharfConnectionFactory(qm2.url()).createConnection()) {
                    onQm2.start();
                    Session receiving = onQm2.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    Flow flow = new Flow(onQm1.createSession(true, Session.SESSION_TRANSACTED),
                            receiving.createConsumer(receiving.createQueue("ORDERS")), qm1, qm2);
                    IntPredicate allPersistent = i -> true;
                    flow.send(20, allPersistent);
                    flow.receiveAll();
                    assertEquals("fast", channel(qm1, "sender").get("nonPersistentSpeed").asText(),
                            "both ends' default nonPersistentSpeed, agreed");

                    Cut first = flow.cutDuring(network, 1, 1_000, 50, allPersistent);
                    flow.receiveAll();
                    Cut second = flow.cutDuring(network, 2, 1_000, 100, i -> i % 10 == 9);
                    flow.receiveAll();
                    assertTrue(flow.lastNonPersistent >= second.waitedFrom, "the non-persistent messages that waited"
                            + " on the transmission queue through the cut (from m " + second.waitedFrom + ") arrive"
                            + " once it heals; the last to arrive was m " + flow.lastNonPersistent);
                    System.out.printf("ChannelNamespaceCutTest: %d messages (%d non-persistent lost to the cut),"
                            + " first cut %s, second %s; %.1f s%n", flow.sent(),
                            flow.nonPersistentSent - flow.nonPersistentReceived, first, second,
                            (System.nanoTime() - began) / 1e9);
                }
            } finally {
                for (ServerProcess qm : started) {
                    qm.close(); // before the network's close, which needs the namespaces empty
                }
            }
        }
    }

    /** Starts member {@code i} with {@code config} in its namespace, returning at once. */
    private ServerProcess launch(NamespaceNetwork network, int i, int port, String config) throws Exception {
        Path file = Files.writeString(dir.resolve(IDS[i] + ".yaml"), config);
        ServerProcess qm = ServerProcess.launch(network.commandPrefix(i), network.clientHost(i),
                dir.resolve(IDS[i] + "-data"), port, network.jvmOptions(i), "--config", file.toString());
        started.add(qm);
        return qm;
    }

    /**
     * What a cut found (the sender's status once it was RETRYING), and the first message sent while it lasted, which
     * waited on the transmission queue.
     */
    private record Cut(boolean inDoubt, long transmissionQueueDepth, int waitedFrom) {
        @Override
        public String toString() {
            return (inDoubt ? "with a batch in doubt" : "between batches") + " and " + transmissionQueueDepth
                    + " messages left on the transmission queue";
        }
    }

    /**
     * Messages "m 0", "m 1", ... sent to ORDERS on QM1 in transactions and received on QM2, with the checks: each
     * persistent one exactly once and in order, each non-persistent one at most once and in order. The test's thread
     * owns it.
     */
    private static final class Flow {
        private final Session session;
        private final MessageProducer producer;
        private final MessageConsumer consumer;
        private final ServerProcess qm1;
        private final ServerProcess qm2;
        /** The persistent messages sent and not yet received, in the order sent. */
        private final ArrayDeque<Integer> persistentDue = new ArrayDeque<>();
        private final List<String> received = new ArrayList<>();
        private int next;
        private int lastNonPersistent = -1;
        private int nonPersistentSent;
        private int nonPersistentReceived;

        Flow(Session session, MessageConsumer consumer, ServerProcess qm1, ServerProcess qm2) throws Exception {
            this.session = session;
            this.producer = session.createProducer(session.createQueue("ORDERS"));
            this.consumer = consumer;
            this.qm1 = qm1;
            this.qm2 = qm2;
        }

        int sent() {
            return next;
        }

        /** Sends the next {@code count} messages in one transaction, message i persistent when {@code persistent}. */
        void send(int count, IntPredicate persistent) throws Exception {
            for (int end = next + count; next < end; next++) {
                boolean p = persistent.test(next);
                producer.send(session.createTextMessage("m " + next),
                        p ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT, 4, 0);
                if (p) {
                    persistentDue.add(next);
                } else {
                    nonPersistentSent++;
                }
            }
            session.commit();
        }

        /**
         * Sends a burst of {@code burst} messages, and as soon as it is committed (the channel taking it in batches)
         * cuts QM1's link to QM2. Waits until the sender is RETRYING and the receiver INACTIVE, each end having found
         * the other silent for three heartbeats (the {@code cut}-th time), sends {@code during} more (they wait on
         * the transmission queue), heals the link, and waits until the channel runs again at both ends.
         */
        Cut cutDuring(MemberNetwork network, int cut, int burst, int during, IntPredicate persistent)
                throws Exception {
            send(burst, persistent);
            network.cut(QM1);
            JsonNode retrying = awaitChannel(qm1, "sender", "RETRYING");
            awaitChannel(qm2, "receiver", "INACTIVE");
            awaitLogged(qm1, FOUND_DEAD, cut);
            awaitLogged(qm2, FOUND_DEAD, cut);
            Cut found = new Cut(retrying.get("inDoubt").asBoolean(), retrying.get("transmissionQueueDepth").asLong(),
                    next);
            assertTrue(found.inDoubt || found.transmissionQueueDepth > 0, "the cut came after the channel had moved"
                    + " the whole burst: it tests nothing (" + found + ")");
            send(during, persistent);
            network.heal(QM1);
            awaitChannel(qm1, "sender", "RUNNING");
            awaitChannel(qm2, "receiver", "RUNNING");
            return found;
        }

        /** Receives until every persistent message sent has arrived, checking each; then asks QM2 for nothing more. */
        void receiveAll() throws Exception {
            while (!persistentDue.isEmpty()) {
                Message m = consumer.receive(EXPECTED.toMillis());
                assertNotNull(m, () -> "after " + tail() + " nothing arrived within " + EXPECTED + "; QM1 said:\n"
                        + qm1.outputSoFar() + "\nQM2 said:\n" + qm2.outputSoFar());
                String text = ((TextMessage) m).getText();
                received.add(text);
                int i = Integer.parseInt(text.substring(2));
                if (m.getJMSDeliveryMode() == DeliveryMode.PERSISTENT) {
                    int due = persistentDue.peekFirst();
                    assertEquals(due, i, () -> "persistent messages exactly once and in order; after " + tail());
                    persistentDue.removeFirst();
                } else {
                    assertTrue(i > lastNonPersistent, () -> "non-persistent messages at most once and in order;"
                            + " after " + tail());
                    lastNonPersistent = i;
                    nonPersistentReceived++;
                }
            }
            Receive.nothingMore(consumer);
        }

        private List<String> tail() {
            return received.subList(Math.max(0, received.size() - 5), received.size());
        }
    }

    /** The status {@code display chstatus} (as {@code wharf admin --json}) gives of QM's end of the channel. */
    private static JsonNode channel(ServerProcess qm, String type) throws Exception {
        for (JsonNode c : JSON.readTree(AdminCli.ok(qm.url(), "--json", "display", "chstatus")).get("result")) {
            if (c.get("name").asText().equals(CHANNEL) && c.get("type").asText().equals(type)) {
                return c;
            }
        }
        throw new AssertionError("no " + type + " " + CHANNEL + " in display chstatus");
    }

    /** Asks {@code qm} ({@code display chstatus}) until its end of the channel is in {@code state}; that status. */
    private static JsonNode awaitChannel(ServerProcess qm, String type, String state) throws Exception {
        long deadline = System.nanoTime() + EXPECTED.toNanos();
        JsonNode status = channel(qm, type);
        while (!status.get("state").asText().equals(state)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the " + type + " never went " + state + " within " + EXPECTED + ": "
                        + status + "\n" + qm.outputSoFar());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // asks the queue manager again
            status = channel(qm, type);
        }
        return status;
    }

    /** Waits until {@code qm} has logged {@code text} {@code times} times (its output is read on another thread). */
    private static void awaitLogged(ServerProcess qm, String text, int times) {
        long deadline = System.nanoTime() + EXPECTED.toNanos();
        while (occurrences(qm.outputSoFar(), text) < times) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("'" + text + "' not logged " + times + " times:\n" + qm.outputSoFar());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    private static int occurrences(String in, String text) {
        int n = 0;
        for (int at = in.indexOf(text); at >= 0; at = in.indexOf(text, at + 1)) {
            n++;
        }
        return n;
    }
}
