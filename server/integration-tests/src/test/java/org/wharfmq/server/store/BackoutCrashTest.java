package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.queue.DeadLetters;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.QueueBrowser;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Backout across a crash (SIGKILL of a real server process): a message moved to the backout queue is there once
 * after the restart, and not on its queue (the move is one journal transaction); a message whose last delivery before
 * the crash reached the threshold is moved at the start, before any consumer sees it again (the delivery count is
 * journaled, as IBM MQ hardens the backout count).
 */
@Tag("slow")
class BackoutCrashTest {

    private static final String CONFIG = """
            queues:
              - name: MOVED.LIVE
                backoutThreshold: 2
                backoutQueue: BACKOUT
              - name: MOVED.AT.START
                backoutThreshold: 2
                backoutQueue: BACKOUT
              - name: BACKOUT
            """;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aBackoutSurvivesAKillOnceOnTheBackoutQueueAndACrashedDeliveryCountsTowardsTheThreshold() throws Exception {
        Path data = dir.resolve("data");
        Path config = Files.writeString(dir.resolve("wharf.yaml"), CONFIG);
        ServerProcess server = ServerProcess.start(data, "--config", config.toString());
        try (Connection connection = connect(server)) {
            send(connection, "MOVED.LIVE", "live");
            send(connection, "MOVED.AT.START", "at start");
            Session tx = connection.createSession(true, Session.SESSION_TRANSACTED);
            MessageConsumer live = tx.createConsumer(tx.createQueue("MOVED.LIVE"));
            for (int i = 0; i < 2; i++) {
                assertNotNull(live.receive(10_000));
                tx.rollback(); // the second reaches the threshold: moved now, while the server runs
            }
            live.close();
            Session held = connection.createSession(true, Session.SESSION_TRANSACTED);
            MessageConsumer atStart = held.createConsumer(held.createQueue("MOVED.AT.START"));
            assertNotNull(atStart.receive(10_000));
            held.rollback();
            Message second = atStart.receive(10_000); // delivered a second time, and the server dies before settling it
            assertEquals(2, second.getIntProperty("JMSXDeliveryCount"));
            // a persistent send is answered once its record is synced, and the journal writes in order: the move's
            // transaction and the second delivery's record are on disk before the kill
            send(connection, "BARRIER", "barrier");
            server.kill();
        }

        server = ServerProcess.start(data, "--config", config.toString());
        try (Connection connection = connect(server)) {
            assertEquals(List.of(), browse(connection, "MOVED.LIVE"));
            assertEquals(List.of(), browse(connection, "MOVED.AT.START"), "moved at the start, not delivered again");
            assertEquals(List.of("at start from MOVED.AT.START after 2", "live from MOVED.LIVE after 2"),
                    browse(connection, "BACKOUT"));
            send(connection, "BARRIER", "barrier"); // the move made at the start is on disk too
            server.kill();
        }

        server = ServerProcess.start(data, "--config", config.toString());
        try (Connection connection = connect(server)) {
            assertEquals(List.of(), browse(connection, "MOVED.LIVE"));
            assertEquals(List.of(), browse(connection, "MOVED.AT.START"));
            assertEquals(List.of("at start from MOVED.AT.START after 2", "live from MOVED.LIVE after 2"),
                    browse(connection, "BACKOUT"), "once each, after a second kill");
        } finally {
            server.close();
        }
    }

    private static Connection connect(ServerProcess server) throws JMSException {
        Connection connection = new WharfConnectionFactory(server.url() + "?reconnectAttempts=0").createConnection();
        connection.start();
        return connection;
    }

    private static void send(Connection connection, String queue, String text) throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(session.createQueue(queue));
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
        producer.send(session.createTextMessage(text));
        session.close();
    }

    /** What waits on {@code queue}, each as "text from QUEUE after N" for a moved one, sorted. */
    private static List<String> browse(Connection connection, String queue) throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        QueueBrowser browser = session.createBrowser(session.createQueue(queue));
        List<String> seen = new ArrayList<>();
        for (Object o : Collections.list(browser.getEnumeration())) {
            TextMessage m = (TextMessage) o;
            seen.add(m.getText() + (m.propertyExists(DeadLetters.QUEUE_PROPERTY) ? " from "
                    + m.getStringProperty(DeadLetters.QUEUE_PROPERTY) + " after "
                    + m.getIntProperty(DeadLetters.DELIVERY_COUNT_PROPERTY) : ""));
        }
        session.close();
        Collections.sort(seen);
        return seen;
    }
}
