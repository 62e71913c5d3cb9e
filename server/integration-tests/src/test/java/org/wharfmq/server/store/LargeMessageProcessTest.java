package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.it.LargeMessages;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.QueueBrowser;
import javax.jms.Session;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The largest message the server takes by default, 100 MB, persistent, through real server processes whose heap (64
 * MiB) is smaller than it, so that a copy of its body on a server's heap fails the test. It is sent to a queue already
 * past its memory budget (8 MiB, spent by five 2 MB messages before it), so the queue pages it and holds no more than
 * its budget and the 2 MB message that crossed it, nor does the server's memory budget for messages (as {@code wharf
 * admin display queue} and {@code display server} show); a browse sees it intact. The active server is killed with
 * SIGKILL and its shared-disk standby takes over, pages it again as it recovers it, and a browse sees it intact; the
 * standby is killed with SIGKILL in turn and a server restarted on the data directory recovers it once more, and it is
 * received byte for byte (its SHA-256 digest the sender's). Once, as it takes a few hundred MB of memory and seconds
 * of disk.
 *
 * <p>The client's side is measured too: the heap every thread of this JVM allocated while the six messages were
 * received, against the bytes received: about once them (the 100 MB body stays in the array its frame was read into;
 * the 2 MB ones are copied out of the link's kept buffers), printed, and at most {@link #RECEIVE_ALLOCATION_RATIO}
 * times (it was 1.91 while every body was copied out of its frame).
 *
 * <p>A message is paged when it arrives while its queue is over budget (docs/resilience.md, "Paging"): the same
 * 100 MB message sent to an empty queue would be held in memory whole.
 */
@Tag("slow")
class LargeMessageProcessTest {

    private static final long QUEUE_BUDGET = 8L * 1024 * 1024;
    /** The server's memory budget for messages, maxMemoryBytes: room for the queue's and more, far below 100 MB. */
    private static final long SERVER_BUDGET = 32L * 1024 * 1024;
    /**
     * The servers' JVM: a heap smaller than the message; direct memory, where messages live, for it as it is read
     * from its client and written to the journal and the paging file.
     */
    private static final List<String> JVM = List.of("-Xmx64m", "-XX:MaxDirectMemorySize=512m");
    /** 2 MB messages sent first: ten MB, past the queue's budget. */
    private static final int SMALL_MESSAGES = 5;
    private static final int BIG_SEED = 42;
    /** What the client may allocate on its heap receiving a message, in times its length. */
    private static final double RECEIVE_ALLOCATION_RATIO = 1.5;

    @TempDir
    Path data;

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void aPersistent100MbMessageIsPagedBrowsedSurvivesKillMinus9AndAStandbyTakeoverAndIsReceivedIntact()
            throws Exception {
        Path config = data.resolveSibling(data.getFileName() + ".yaml");
        Files.writeString(config, "maxMemoryBytes: " + SERVER_BUDGET + "\nqueues:\n  - name: LARGE\n    maxBytes: "
                + QUEUE_BUDGET + "\n    policy: page\n");
        long start = System.nanoTime();
        ServerProcess active = ServerProcess.startWithJvmOptions(data, JVM, "--config", config.toString());
        ServerProcess standby = ServerProcess.startStandbyWithJvmOptions(data, JVM, "--config", config.toString());
        try {
            try (Connection connection = new WharfConnectionFactory(active.url()).createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue queue = session.createQueue("LARGE");
                MessageProducer producer = session.createProducer(queue);
                for (int seed = 1; seed <= SMALL_MESSAGES; seed++) {
                    producer.send(LargeMessages.message(session, LargeMessages.TWO_MB, seed), DeliveryMode.PERSISTENT,
                            4, 0);
                }
                // answered once it is in the journal: it must survive the kill
                producer.send(LargeMessages.message(session, LargeMessages.HUNDRED_MB, BIG_SEED),
                        DeliveryMode.PERSISTENT, 4, 0);
                log(start, "sent");
                assertPagedWithinBudget(active, "sent");
                assertBrowsedIntact(session, queue);
                log(start, "browsed");
            } finally {
                active.kill(); // SIGKILL: no orderly close of the journal
            }

            standby.awaitReady(120); // the standby takes the data directory over, recovering the journal
            log(start, "the standby took over");
            assertPagedWithinBudget(standby, "taken over"); // recovery pages what comes past the budget
            try (Connection connection = new WharfConnectionFactory(standby.url()).createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                assertBrowsedIntact(session, session.createQueue("LARGE"));
                log(start, "browsed on the standby");
            } finally {
                standby.kill();
            }
        } finally {
            standby.close(); // first: closing the active would hand the directory to it
            active.close();
        }

        try (ServerProcess restarted = ServerProcess.startWithJvmOptions(data, JVM, "--config", config.toString())) {
            log(start, "restarted");
            assertPagedWithinBudget(restarted, "restarted");
            try (Connection connection = new WharfConnectionFactory(restarted.url()).createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                long allocatedBefore = allocatedBytes();
                MessageConsumer consumer = session.createConsumer(session.createQueue("LARGE"));
                List<Message> received = new ArrayList<>();
                for (int i = 0; i <= SMALL_MESSAGES; i++) {
                    Message m = consumer.receive(60_000);
                    assertNotNull(m, "message " + (i + 1) + " of " + (SMALL_MESSAGES + 1));
                    received.add(m);
                }
                long allocated = allocatedBytes() - allocatedBefore;
                long bytes = SMALL_MESSAGES * (long) LargeMessages.TWO_MB + LargeMessages.HUNDRED_MB;
                System.out.printf("LargeMessageProcessTest: the client allocated %.1f MB of heap receiving %.1f MB of"
                        + " bodies (%.2f times)%n", allocated / 1e6, bytes / 1e6, (double) allocated / bytes);
                assertTrue(allocated <= RECEIVE_ALLOCATION_RATIO * bytes, () -> "the client allocated " + allocated
                        + " bytes receiving " + bytes + ", more than " + RECEIVE_ALLOCATION_RATIO + " times");
                for (int i = 0; i <= SMALL_MESSAGES; i++) {
                    assertEquals(i < SMALL_MESSAGES ? i + 1 : BIG_SEED, LargeMessages.assertIntact(received.get(i)),
                            "in order");
                }
                assertNull(consumer.receiveNoWait(), "each message once");
                log(start, "received");
            }
            assertEquals(0, MessageMemory.queue(restarted.url(), "LARGE").get("depth").asLong());
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
     * Waits until neither the queue nor the server's memory budget for messages holds more than the queue's budget and
     * the 2 MB message that crossed it (with its overhead), as the server says ({@link MessageMemory#awaitWithin}),
     * then checks that the queue holds its six messages, the 100 MB one paged. The server's heap limit is the 64 MiB
     * it was given.
     */
    private static void assertPagedWithinBudget(ServerProcess server, String when) throws Exception {
        MessageMemory.Figures figures = MessageMemory.awaitWithin(server.url(), "LARGE",
                QUEUE_BUDGET + LargeMessages.TWO_MB + 64 * 1024, "LargeMessageProcessTest: " + when);
        figures.assertHoldsWithTheLargestPaged(SMALL_MESSAGES + 1);
        figures.assertServerBudget(SERVER_BUDGET);
        assertTrue(figures.server().get("heapMaxBytes").asLong() <= 64L * 1024 * 1024, figures::toString);
    }

    /** The heap every live thread of this JVM has allocated so far. */
    private static long allocatedBytes() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            sum += Math.max(bytes, 0);
        }
        return sum;
    }

    private static void log(long start, String step) {
        System.out.printf("LargeMessageProcessTest: %s after %.1f s%n", step, (System.nanoTime() - start) / 1e9);
    }
}
