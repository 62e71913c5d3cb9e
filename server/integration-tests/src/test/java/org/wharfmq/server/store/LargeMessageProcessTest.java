package org.wharfmq.server.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.cli.FlowCommandAccess;
import org.wharfmq.server.it.LargeMessages;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.QueueBrowser;
import javax.jms.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The largest message the server takes by default, 100 MB, persistent, in a real server process: it is sent to a
 * queue already past its memory budget (8 MiB, spent by five 2 MB messages before it), so the queue pages it and
 * holds no more than its budget and the 2 MB message that crossed it (as {@code wharf admin display queue} shows);
 * a browse sees it intact; it survives a kill -9, is paged again as it is recovered, and comes back byte for byte.
 * Once, as it takes a few hundred MB of memory and seconds of disk.
 *
 * <p>A message is paged when it arrives while its queue is over budget (docs/resilience.md, "Paging"): the same
 * 100 MB message sent to an empty queue would be held in memory whole.
 */
@Tag("slow")
class LargeMessageProcessTest {

    private static final long QUEUE_BUDGET = 8L * 1024 * 1024;
    /** 2 MB messages sent first: ten MB, past the queue's budget. */
    private static final int SMALL_MESSAGES = 5;
    private static final int BIG_SEED = 42;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path data;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aPersistent100MbMessageIsPagedBrowsedSurvivesKillMinus9AndIsReceivedIntact() throws Exception {
        Path config = data.resolveSibling(data.getFileName() + ".yaml");
        Files.writeString(config, "queues:\n  - name: LARGE\n    maxBytes: " + QUEUE_BUDGET + "\n    policy: page\n");
        try (ServerProcess server = ServerProcess.start(data, "--config", config.toString())) {
            Connection connection = new WharfConnectionFactory(server.url()).createConnection();
            try {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue queue = session.createQueue("LARGE");
                MessageProducer producer = session.createProducer(queue);
                for (int seed = 1; seed <= SMALL_MESSAGES; seed++) {
                    producer.send(LargeMessages.message(session, LargeMessages.TWO_MB, seed), DeliveryMode.PERSISTENT, 4, 0);
                }
                producer.send(LargeMessages.message(session, LargeMessages.HUNDRED_MB, BIG_SEED), DeliveryMode.PERSISTENT, 4, 0);

                JsonNode status = awaitWithinBudget(server);
                assertEquals(SMALL_MESSAGES + 1, status.get("depth").asLong(), status.toString());
                assertTrue(status.get("paged").asLong() >= 1 && status.get("pagedBytes").asLong() > LargeMessages.HUNDRED_MB,
                        () -> "the 100 MB message came past the queue's budget: it is paged: " + status);
                assertBrowsedIntact(session, queue);
            } finally {
                server.kill(); // kill -9: the send was answered, so the message is in the journal
                connection.close();
            }
        }
        try (ServerProcess server = ServerProcess.start(data, "--config", config.toString())) {
            JsonNode status = awaitWithinBudget(server); // recovery pages what comes past the budget
            assertEquals(SMALL_MESSAGES + 1, status.get("depth").asLong(), status.toString());
            assertTrue(status.get("paged").asLong() >= 1, () -> "the 100 MB message is paged again: " + status);
            Connection connection = new WharfConnectionFactory(server.url()).createConnection();
            try {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue queue = session.createQueue("LARGE");
                assertBrowsedIntact(session, queue);
                MessageConsumer consumer = session.createConsumer(queue);
                for (int seed = 1; seed <= SMALL_MESSAGES + 1; seed++) {
                    Message received = consumer.receive(60_000);
                    assertEquals(seed <= SMALL_MESSAGES ? seed : BIG_SEED, LargeMessages.assertIntact(received), "in order");
                }
                assertNull(consumer.receiveNoWait(), "each message once");
            } finally {
                connection.close();
            }
            assertEquals(0, queueStatus(server).get("depth").asLong());
        }
    }

    /** A browse sees the six messages, in order, each intact. */
    private static void assertBrowsedIntact(Session session, Queue queue) throws Exception {
        try (QueueBrowser browser = session.createBrowser(queue)) {
            List<Message> browsed = Collections.list(browser.getEnumeration()).stream().map(m -> (Message) m).toList();
            assertEquals(SMALL_MESSAGES + 1, browsed.size());
            for (int i = 0; i < browsed.size(); i++) {
                assertEquals(i < SMALL_MESSAGES ? i + 1 : BIG_SEED, LargeMessages.assertIntact(browsed.get(i)));
            }
        }
    }

    /**
     * Waits until the queue holds no more in memory than its budget and the 2 MB message that crossed it (with its
     * overhead), and returns its status: a paged message holds its bytes until the paging thread has written it
     * (docs/resilience.md, "Paging"), so the figure is read until it is within bounds, for at most a minute.
     */
    private static JsonNode awaitWithinBudget(ServerProcess server) throws Exception {
        long most = QUEUE_BUDGET + LargeMessages.TWO_MB + 64 * 1024;
        long deadline = System.currentTimeMillis() + 60_000;
        while (true) {
            JsonNode status = queueStatus(server);
            if (status.get("memoryBytes").asLong() <= most) {
                return status;
            }
            assertTrue(System.currentTimeMillis() < deadline, () -> "memory past the budget a minute on: " + status);
        }
    }

    /** {@code wharf admin --json display queue LARGE}: the server's management view of the queue. */
    private static JsonNode queueStatus(ServerProcess server) throws Exception {
        FlowCommandAccess.Result r = FlowCommandAccess.run("admin", "--url", server.url(), "--json", "display", "queue", "LARGE");
        assertEquals(0, r.status(), r.err() + r.out());
        return JSON.readTree(r.out()).get("result");
    }
}
