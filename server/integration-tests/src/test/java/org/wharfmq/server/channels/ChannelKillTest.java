package org.wharfmq.server.channels;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.store.ServerProcess;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The sending queue manager, then the receiving one, as a process of its own, killed with SIGKILL twice while the
 * channel moves batches of persistent messages, two batches on the way at once (pipelineLength 2): every message
 * arrives once, in order.
 */
@Tag("slow")
class ChannelKillTest {

    private static final int MESSAGES = 1_000;

    @TempDir
    Path dir;

    @Test
    void everyMessageArrivesOnceAndInOrderWhenTheSendingQueueManagerIsKilledDuringBatches() throws Exception {
        try (TestServer qm2 = TestServer.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS"),
                config -> WharfServer.builder(config).plugins(new ChannelsPlugin(new ChannelSettings(List.of(
                        ChannelDefinition.receiver("TO.QM2", null, "QM1"))))).start())) {
            Path config = dir.resolve("qm1.yaml");
            Files.writeString(config, "name: QM1\nautoCreate: false\nqueues:\n"
                    + "  - name: QM2\n    usage: transmission\n"
                    + "  - name: ORDERS\n    type: remote\n    remoteQueue: ORDERS\n    remoteQueueManager: QM2\n"
                    + "channels:\n  - name: TO.QM2\n    type: sender\n    connection: " + qm2.server().tcpUrl() + "\n"
                    + "    transmissionQueue: QM2\n    batchSize: 10\n    pipelineLength: 2\n"
                    + "    retryMillis: 50\n    maxRetryMillis: 500\n");
            Path data = dir.resolve("qm1-data");
            int port;
            try (ServerSocket free = new ServerSocket(0)) {
                port = free.getLocalPort();
            }
            ServerProcess qm1 = ServerProcess.start(data, port, "--config", config.toString());
            try {
                try (Connection producerConnection = new WharfConnectionFactory(qm1.url()).createConnection()) {
                    Session session = producerConnection.createSession(true, Session.SESSION_TRANSACTED);
                    MessageProducer producer = session.createProducer(session.createQueue("ORDERS"));
                    for (int i = 0; i < MESSAGES; i++) {
                        producer.send(session.createTextMessage("order " + i));
                    }
                    session.commit();
                }
                try (Connection onQm2 = new WharfConnectionFactory(qm2.server().tcpUrl()).createConnection()) {
                    onQm2.start();
                    Session session = onQm2.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    MessageConsumer orders = session.createConsumer(session.createQueue("ORDERS"));
                    for (int i = 0; i < MESSAGES; i++) {
                        if (i == 200 || i == 600) {
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
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
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
            try (Connection producerConnection = new WharfConnectionFactory(qm1.server().tcpUrl()).createConnection()) {
                Session session = producerConnection.createSession(true, Session.SESSION_TRANSACTED);
                MessageProducer producer = session.createProducer(session.createQueue("ORDERS"));
                for (int i = 0; i < MESSAGES; i++) {
                    producer.send(session.createTextMessage("order " + i));
                }
                session.commit();
            }
            for (int killAt : new int[] {200, 600}) {
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
}
