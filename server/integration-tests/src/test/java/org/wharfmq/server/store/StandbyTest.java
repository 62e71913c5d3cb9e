package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A standby ({@code wharf server --standby}) on the data directory of a running queue manager: it waits, saying for
 * whom, and takes over when that one dies (kill -9) or stops, with every committed persistent message; a second
 * server without {@code --standby} is refused, naming the holder and the fix. Real server processes on one disk.
 */
@Tag("slow")
class StandbyTest {

    private static final int MESSAGES = 50;

    @TempDir
    Path data;

    @Test
    @Timeout(120)
    void standbyTakesOverWithEveryPersistentMessageWhenTheActiveIsKilled() throws Exception {
        try (ServerProcess active = ServerProcess.start(data)) {
            send(active.url(), MESSAGES);
            try (ServerProcess standby = ServerProcess.startStandby(data)) {
                assertTrue(standby.alive(), "the standby waits");
                long killed = System.nanoTime();
                active.kill();
                standby.awaitReady(60);
                assertTrue(standby.outputSoFar().contains("did not stop in order"), "recovered as after a crash");
                System.out.printf("standby ready %.0f ms after kill -9 of the active%n", (System.nanoTime() - killed) / 1e6);
                receiveAll(standby.url(), MESSAGES); // every committed persistent message, in order, once
                assertTrue(standby.alive());
            }
        }
    }

    /**
     * A consumer whose URL names both servers fails over to the standby by itself when the active one is killed, and
     * gets every committed persistent message: those it had not received, and any it had received but not yet
     * acknowledged marked JMSRedelivered. Prints the time from kill -9 to the first message from the standby.
     */
    @Test
    @Timeout(120)
    void aClientNamingBothServersFailsOverToTheStandbyAndLosesNothing() throws Exception {
        int standbyPort;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            standbyPort = free.getLocalPort();
        }
        try (ServerProcess active = ServerProcess.start(data)) {
            send(active.url(), MESSAGES);
            try (ServerProcess standby = ServerProcess.startStandby(data, standbyPort)) {
                String url = active.url() + ",tcp://127.0.0.1:" + standbyPort + "?reconnectAttempts=-1";
                java.util.List<org.wharfmq.jms.FailoverEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
                try (Connection connection = new WharfConnectionFactory(url).createConnection()) {
                    ((org.wharfmq.jms.WharfConnection) connection).setFailoverListener(events::add);
                    Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
                    MessageConsumer consumer = session.createConsumer(session.createQueue("STANDBY.Q"));
                    connection.start();
                    java.util.Set<String> received = new java.util.HashSet<>();
                    for (int i = 0; i < MESSAGES / 2; i++) {
                        TextMessage m = (TextMessage) consumer.receive(10_000);
                        assertNotNull(m);
                        received.add(m.getText());
                        if (i < MESSAGES / 4) {
                            m.acknowledge(); // the first quarter acknowledged, the second quarter not
                        }
                    }
                    long killed = System.nanoTime();
                    active.kill();
                    TextMessage next = (TextMessage) consumer.receive(60_000);
                    assertNotNull(next, "the consumer goes on, on the standby");
                    System.out.printf("first message from the standby %.0f ms after kill -9 of the active%n",
                            (System.nanoTime() - killed) / 1e6);
                    int redelivered = 0;
                    for (TextMessage m = next; m != null; m = (TextMessage) consumer.receive(5_000)) {
                        if (!received.add(m.getText())) {
                            assertTrue(m.getJMSRedelivered(), "a message seen before comes back marked: " + m.getText());
                            redelivered++;
                        }
                        m.acknowledge();
                        if (received.size() == MESSAGES && redelivered >= MESSAGES / 4) {
                            break;
                        }
                    }
                    assertEquals(MESSAGES, received.size(), "every committed persistent message");
                    assertEquals(standbyPort, standby.port());
                    assertTrue(events.stream().anyMatch(e -> e.kind() == org.wharfmq.jms.FailoverEvent.Kind.RECONNECTED
                            && e.address().contains(":" + standbyPort)), events.toString());
                }
            }
        }
    }

    @Test
    @Timeout(120)
    void standbyTakesOverWhenTheActiveStopsInOrder() throws Exception {
        ServerProcess active = ServerProcess.start(data);
        send(active.url(), MESSAGES);
        try (ServerProcess standby = ServerProcess.startStandby(data)) {
            active.close(); // SIGTERM: an orderly stop releases the lock too
            standby.awaitReady(60);
            String log = standby.outputSoFar();
            assertTrue(log.contains("takes over data directory"), log);
            assertTrue(log.contains("recovered") && !log.contains("did not stop in order"),
                    "the active closed its journal in order before the standby opened it: " + log);
            receiveAll(standby.url(), MESSAGES);
        }
    }

    @Test
    @Timeout(120)
    void aSecondServerWithoutStandbyIsRefusedNamingTheHolderAndTheFix() throws Exception {
        try (ServerProcess active = ServerProcess.start(data)) {
            ServerProcess second = ServerProcess.launch(data);
            assertEquals(1, second.awaitExit(60), "cannot start");
            String output = second.output();
            assertTrue(output.contains("Data directory " + data.toAbsolutePath() + " is in use by another Wharf queue manager "
                    + "(queue manager WHARF, process " + active.pid() + " on "), output);
            assertTrue(output.contains("or start this one as its standby (setting standby: true, or --standby)"), output);
            send(active.url(), 1); // the active one is unharmed
            receiveAll(active.url(), 1);
        }
    }

    private static void send(String url, int count) throws Exception {
        try (Connection connection = new WharfConnectionFactory(url).createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("STANDBY.Q"));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            for (int i = 0; i < count; i++) {
                producer.send(session.createTextMessage("m" + i)); // returns once journaled (fsync)
            }
        }
    }

    /**
     * Receives the queue's {@code expected} messages, checking the order, then nothing more: a receiveNoWait, which the
     * server answers only after everything it has for the consumer.
     */
    private static void receiveAll(String url, int expected) throws Exception {
        try (Connection connection = new WharfConnectionFactory(url).createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("STANDBY.Q"));
            connection.start();
            for (int n = 0; n < expected; n++) {
                TextMessage m = (TextMessage) consumer.receive(10_000);
                assertNotNull(m, "message " + n + " of " + expected);
                assertEquals("m" + n, m.getText());
            }
            assertNull(consumer.receiveNoWait());
        }
    }
}
