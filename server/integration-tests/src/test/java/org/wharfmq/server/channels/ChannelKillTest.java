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
 * The sending queue manager as a process of its own, killed with SIGKILL twice while its channel moves batches of
 * persistent messages: every message arrives once, in order.
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
                    + "    transmissionQueue: QM2\n    batchSize: 10\n    retryMillis: 50\n    maxRetryMillis: 500\n");
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
}
