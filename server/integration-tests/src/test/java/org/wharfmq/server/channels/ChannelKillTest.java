package org.wharfmq.server.channels;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.store.ServerProcess;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sending queue manager, then the receiving one, as a process of its own, killed with SIGKILL twice while the
 * channel moves batches of persistent messages, two batches on the way at once (pipelineLength 2); then both, each a
 * process, killed together once: every message arrives once, in order. {@code -Dwharf.it.channelKills=N} kills N
 * times in each test instead (a soak).
 */
@Tag("slow")
class ChannelKillTest {

    private static final int MESSAGES = 1_000;
    /** Where one queue manager is killed: after this many messages, evenly spaced. */
    private static final int[] KILL_AT = killPoints(Integer.getInteger("wharf.it.channelKills", 2));
    /** Where both are: two JVMs started again per kill. */
    private static final int[] BOTH_KILL_AT = killPoints(Integer.getInteger("wharf.it.channelKills", 1));
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void everyMessageArrivesOnceAndInOrderWhenTheSendingQueueManagerIsKilledDuringBatches() throws Exception {
        try (TestServer qm2 = TestServer.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS"),
                config -> WharfServer.builder(config).plugins(new ChannelsPlugin(new ChannelSettings(List.of(
                        ChannelDefinition.receiver("TO.QM2", null, "QM1"))))).start())) {
            Path config = senderConfig(qm2.server().tcpUrl());
            Path data = dir.resolve("qm1-data");
            int port = FreePorts.one();
            ServerProcess qm1 = ServerProcess.start(data, port, "--config", config.toString());
            try {
                ChannelServers.sendOrders(qm1.url(), 0, MESSAGES);
                try (Connection onQm2 = new WharfConnectionFactory(qm2.server().tcpUrl()).createConnection()) {
                    onQm2.start();
                    Session session = onQm2.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    MessageConsumer orders = session.createConsumer(session.createQueue("ORDERS"));
                    for (int i = 0; i < MESSAGES; i++) {
                        if (killsAt(i)) {
                            qm1.kill(); // SIGKILL, in the middle of the channel's batches
                            qm1 = ServerProcess.start(data, port, "--config", config.toString());
                        }
                        Message m = orders.receive(30_000);
                        assertNotNull(m, "order " + i + " did not arrive within 30 s; QM1 said:\n" + qm1.outputSoFar());
                        assertEquals("order " + i, ((TextMessage) m).getText());
                    }
                    Receive.nothingMore(orders);
                }
            } finally {
                qm1.close();
            }
        }
    }

    @Test
    void everyMessageArrivesOnceAndInOrderWhenTheReceivingQueueManagerIsKilledDuringBatches() throws Exception {
        int port = FreePorts.one();
        Path config = dir.resolve("qm2.yaml");
        Files.writeString(config, "name: QM2\nautoCreate: false\nqueues:\n  - name: ORDERS\n"
                + "channels:\n  - name: TO.QM2\n    type: receiver\n    partnerQueueManager: QM1\n");
        Path data = dir.resolve("qm2-data");
        ServerProcess qm2 = ServerProcess.start(data, port, "--config", config.toString());
        ChannelsPlugin[] channels = new ChannelsPlugin[1];
        try (TestServer qm1 = TestServer.start(c -> c.name("QM1").autoCreate(false)
                .queue(org.wharfmq.server.config.QueueDefinition.transmissionQueue("QM2"))
                .reference(org.wharfmq.server.config.QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                c -> {
                    channels[0] = new ChannelsPlugin(new ChannelSettings(List.of(ChannelDefinition.sender("TO.QM2",
                            "tcp://127.0.0.1:" + port, "QM2", null, null).withBatchSize(10).withTimes(50, 60_000)
                            .withMaxRetry(500) // finds the restarted receiver within half a second, as QM1's above
                            .withPipelineLength(2))));
                    return WharfServer.builder(c).plugins(channels[0]).start();
                })) {
            ChannelServers.sendOrders(qm1.server().tcpUrl(), 0, MESSAGES);
            for (int killAt : KILL_AT) {
                long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
                while (channels[0].messagesSent("TO.QM2") < killAt && System.nanoTime() < deadline) {
                    java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // polls what the channel reports
                }
                qm2.kill(); // SIGKILL, in the middle of the channel's batches
                qm2 = ServerProcess.start(data, port, "--config", config.toString());
            }
            try (Connection onQm2 = new WharfConnectionFactory(qm2.url()).createConnection()) {
                onQm2.start();
                Session session = onQm2.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer orders = session.createConsumer(session.createQueue("ORDERS"));
                for (int i = 0; i < MESSAGES; i++) {
                    Message m = orders.receive(30_000);
                    assertNotNull(m, "order " + i + " did not arrive within 30 s; QM2 said:\n" + qm2.outputSoFar());
                    assertEquals("order " + i, ((TextMessage) m).getText());
                }
                Receive.nothingMore(orders);
            }
        } finally {
            qm2.close();
        }
    }

    @Test
    @Timeout(value = 300, unit = java.util.concurrent.TimeUnit.SECONDS) // four JVM starts, each up to 60 s when loaded
    void everyMessageArrivesOnceAndInOrderWhenBothQueueManagersAreKilledDuringBatches() throws Exception {
        int port1 = FreePorts.one();
        int port2 = FreePorts.one();
        Path config2 = dir.resolve("qm2.yaml");
        Files.writeString(config2, "name: QM2\nautoCreate: false\nqueues:\n  - name: ORDERS\n"
                + "channels:\n  - name: TO.QM2\n    type: receiver\n    partnerQueueManager: QM1\n");
        Path config1 = senderConfig("tcp://127.0.0.1:" + port2);
        Path data1 = dir.resolve("qm1-data");
        Path data2 = dir.resolve("qm2-data");
        ServerProcess[] qms = {ServerProcess.start(data1, port1, "--config", config1.toString()),
                ServerProcess.start(data2, port2, "--config", config2.toString())};
        try {
            ChannelServers.sendOrders(qms[0].url(), 0, MESSAGES);
            for (int killAt : BOTH_KILL_AT) {
                awaitArrived(qms[1], killAt);
                qms[0].kill(); // SIGKILL both, in the middle of the channel's batches
                qms[1].kill();
                qms[0] = ServerProcess.start(data1, port1, "--config", config1.toString());
                qms[1] = ServerProcess.start(data2, port2, "--config", config2.toString());
            }
            try (Connection onQm2 = new WharfConnectionFactory(qms[1].url()).createConnection()) {
                onQm2.start();
                Session session = onQm2.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer orders = session.createConsumer(session.createQueue("ORDERS"));
                for (int i = 0; i < MESSAGES; i++) {
                    Message m = orders.receive(30_000);
                    assertNotNull(m, "order " + i + " did not arrive within 30 s; QM1 said:\n" + qms[0].outputSoFar()
                            + "\nQM2 said:\n" + qms[1].outputSoFar());
                    assertEquals("order " + i, ((TextMessage) m).getText());
                }
                Receive.nothingMore(orders);
            }
        } finally {
            qms[0].close();
            qms[1].close();
        }
    }

    /** Asks {@code qm2} ({@code display queue ORDERS}) until {@code count} messages or more arrived there. */
    private static void awaitArrived(ServerProcess qm2, long count) throws Exception {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        long depth = 0;
        while (depth < count && System.nanoTime() < deadline) {
            depth = JSON.readTree(AdminCli.ok(qm2.url(), "--json", "display", "queue", "ORDERS")).get("result")
                    .get("depth").asLong();
        }
        assertTrue(depth >= count, depth + " messages arrived on QM2 within 30 s; QM2 said:\n" + qm2.outputSoFar());
    }

    private static boolean killsAt(int arrived) {
        for (int at : KILL_AT) {
            if (at == arrived) {
                return true;
            }
        }
        return false;
    }

    private static int[] killPoints(int kills) {
        int[] at = new int[kills];
        for (int k = 0; k < kills; k++) {
            at[k] = MESSAGES * (k + 1) / (kills + 1);
        }
        return at;
    }

    /** QM1's configuration: ORDERS, a remote queue on QM2 through the channel TO.QM2 to {@code qm2Url}. */
    private Path senderConfig(String qm2Url) throws Exception {
        return Files.writeString(dir.resolve("qm1.yaml"), "name: QM1\nautoCreate: false\nqueues:\n"
                + "  - name: QM2\n    usage: transmission\n"
                + "  - name: ORDERS\n    type: remote\n    remoteQueue: ORDERS\n    remoteQueueManager: QM2\n"
                + "channels:\n  - name: TO.QM2\n    type: sender\n    connection: " + qm2Url + "\n"
                + "    transmissionQueue: QM2\n    batchSize: 10\n    pipelineLength: 2\n"
                + "    retryMillis: 50\n    maxRetryMillis: 500\n");
    }
}
