package org.wharfmq.server.flow;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.store.ServerProcess;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sample bridge between Wharf and a real Apache ActiveMQ Artemis ({@code ArtemisBridgeFlow}) with the provider
 * {@code xa: true}: each message crosses in one XA transaction of the server's transaction manager, the get on one
 * side and the put on the other. The server runs as {@code wharf server --config} and is killed (SIGKILL) while an
 * order (Artemis to Wharf) and an invoice (Wharf to Artemis) are each held at a crash point of their transaction
 * (a hook of the server's, {@link QueueManagerBranch#PROPERTY}, logged when reached: no sleeps); the restarted
 * server's recovery settles the branches left in doubt on both sides, and each message is then on the other side
 * exactly once (docs/flows.md, "Coordinated transactions"). Without XA the kill would leave a window in which a message
 * is on both sides.
 */
@Tag("slow")
class JmsXaCrashTest {

    /** Generous: a server JVM starting on a loaded 2-core machine. */
    private static final long WAIT_MILLIS = 90_000;

    @TempDir
    Path dir;

    /**
     * Killed after Artemis's branches are prepared (the order's get, the invoice's send), before the queue manager's
     * prepare and before any decision: Artemis keeps both prepared across the kill. The restarted server's recovery
     * rolls them back (no decision in its log): the order comes again from Artemis, the invoice again from Wharf's
     * queue, and each crosses once.
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void killedBeforeTheDecisionArtemisBranchesAreRolledBackByRecoveryAndEachMessageCrossesOnce() throws Exception {
        try (TestArtemis artemis = TestArtemis.onFreePort().start()) {
            Path config = artemis.sampleBridgeConfiguration(dir, true, "");
            Path data = dir.resolve("data");
            killHeldAt("beforePrepare", artemis, data, config);
            assertEquals(2, artemis.prepared(), "the order's get and the invoice's send prepared in Artemis");
            assertEquals(0, artemis.messageCount("INVOICES"), "a prepared send is not visible");

            ServerProcess server = ServerProcess.start(data, "--config", config.toString());
            try {
                assertEachCrossedOnce(artemis, server);
                assertTrue(server.outputSoFar().contains("Recovery rolled back a branch left in doubt in JMS provider "
                        + "'artemis'"), server.outputSoFar());
            } finally {
                server.close();
            }
        }
    }

    /**
     * Killed after every branch is prepared and the commit decision logged, Artemis's branches committed (the order
     * taken off Artemis, the invoice on it), the queue manager's held before its commit (the order's put, the
     * invoice's get in doubt). The restarted server's recovery commits the queue manager's branches from its log.
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void killedAfterTheDecisionTheQueueManagersBranchesAreCommittedByRecoveryAndEachMessageCrossesOnce()
            throws Exception {
        try (TestArtemis artemis = TestArtemis.onFreePort().start()) {
            Path config = artemis.sampleBridgeConfiguration(dir, true, "");
            Path data = dir.resolve("data");
            killHeldAt("beforeCommit", artemis, data, config);
            assertEquals(0, artemis.prepared(), "Artemis's branches committed before the queue manager's");
            assertEquals(0, artemis.messageCount("ORDERS"), "the order's get committed in Artemis");
            assertEquals(1, artemis.messageCount("INVOICES"), "the invoice's send committed in Artemis");

            ServerProcess server = ServerProcess.start(data, "--config", config.toString());
            try {
                assertTrue(server.outputSoFar().contains("2 prepared XA transactions in doubt"), server.outputSoFar());
                assertEachCrossedOnce(artemis, server);
            } finally {
                server.close();
            }
        }
    }

    /**
     * Starts the server with the crash point {@code point}, puts an order on Artemis and an invoice on Wharf, waits
     * until both transactions are held there, and kills the server.
     */
    private static void killHeldAt(String point, TestArtemis artemis, Path data, Path config) throws Exception {
        ServerProcess server = ServerProcess.startWithJvmOptions(data,
                List.of("-D" + QueueManagerBranch.PROPERTY + "=" + point), "--config", config.toString());
        try {
            try (Connection toArtemis = artemis.connectionFactory().createConnection();
                 Connection toWharf = new WharfConnectionFactory(server.url()).createConnection()) {
                send(toArtemis, "ORDERS", "order 1");
                send(toWharf, "INVOICES", "invoice 1");
            }
            awaitTwice(server, QueueManagerBranch.HOLDING + " " + point);
        } finally {
            server.kill();
        }
    }

    private static void send(Connection connection, String queue, String text) throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        session.createProducer(session.createQueue(queue)).send(session.createTextMessage(text),
                DeliveryMode.PERSISTENT, 4, 0);
    }

    /** The order is on Wharf once and off Artemis; the invoice on Artemis once and off Wharf; nothing in doubt. */
    private static void assertEachCrossedOnce(TestArtemis artemis, ServerProcess server) throws Exception {
        try (Connection toWharf = new WharfConnectionFactory(server.url()).createConnection();
             Connection toArtemis = artemis.connectionFactory().createConnection()) {
            toWharf.start();
            toArtemis.start();
            Session wharf = toWharf.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Session onArtemis = toArtemis.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer orders = wharf.createConsumer(wharf.createQueue("ORDERS"));
            MessageConsumer invoices = onArtemis.createConsumer(onArtemis.createQueue("INVOICES"));
            assertText("order 1", orders.receive(WAIT_MILLIS), server);
            assertText("invoice 1", invoices.receive(WAIT_MILLIS), server);
            Receive.nothingMore(orders);
            Receive.nothingMore(wharf.createConsumer(wharf.createQueue("INVOICES")));
        }
        assertEquals(0, artemis.messageCount("ORDERS"), "the order was left on Artemis");
        assertEquals(0, artemis.messageCount("INVOICES"), "the invoice reached Artemis twice");
        assertEquals(0, artemis.prepared(), "a branch left in doubt in Artemis");
    }

    private static void assertText(String expected, Message message, ServerProcess server) throws JMSException {
        assertNotNull(message, "no '" + expected + "' after the restart:\n" + server.outputSoFar());
        assertEquals(expected, ((TextMessage) message).getText());
    }

    /** Waits until the server has printed {@code line} twice (both transactions held at the crash point). */
    private static void awaitTwice(ServerProcess server, String line) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        String output;
        while ((output = server.outputSoFar()).indexOf(line) < 0
                || output.indexOf(line, output.indexOf(line) + line.length()) < 0) {
            assertTrue(System.nanoTime() < deadline, "the server did not hold two transactions at '" + line + "':\n"
                    + output);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }
}
