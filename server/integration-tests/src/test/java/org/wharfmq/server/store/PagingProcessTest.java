package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Paging in a real server process (docs/resilience.md, "Paging"): a queue far larger than the server's heap fills and
 * drains in order (issue 22's 10-million-message test at CI size), a kill -9 while a queue pages loses no
 * persistent message (the journal stays their durable copy) while its non-persistent paged ones are gone, as
 * non-persistent messages always are after a crash, and a persistent backlog larger than the heap is recovered by
 * paging it.
 */
@Tag("slow")
class PagingProcessTest {

    /** 2 KB messages, as in issue 22's test. */
    private static final int BODY_BYTES = 2048;
    private static final long RECEIVE_MS = 30_000;

    @TempDir
    Path data;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aQueueOfTwiceTheHeapFillsAndDrainsInOrderOnA64MiBHeap() throws Exception {
        int messages = 70_000; // 140 MB of bodies: twice the heap, which is also the direct memory limit
        try (ServerProcess server = ServerProcess.startWithJvmOptions(data, List.of("-Xmx64m"))) {
            Connection connection = new WharfConnectionFactory(server.url()).createConnection();
            try {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                javax.jms.Queue queue = session.createQueue("BIG"); // created by use: the default policy, page
                MessageProducer producer = session.createProducer(queue);
                producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
                byte[] body = new byte[BODY_BYTES];
                for (int n = 0; n < messages; n++) {
                    BytesMessage m = session.createBytesMessage();
                    m.writeBytes(body);
                    m.setIntProperty("n", n);
                    producer.send(m);
                }
                receiveInOrder(session.createConsumer(queue), messages, "out of order");
            } finally {
                connection.close();
            }
            assertAlive(server);
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void afterAKillWhileAQueuePagesEveryPersistentMessageComesBackInOrderAndNoNonPersistentOne() throws Exception {
        Path config = data.resolveSibling(data.getFileName() + ".yaml");
        Files.writeString(config, "queues:\n  - name: PAGED\n    maxBytes: 65536\n    policy: page\n");
        int persistent = 2_000;
        try (ServerProcess server = ServerProcess.start(data, "--config", config.toString())) {
            Connection connection = new WharfConnectionFactory(server.url()).createConnection();
            try {
                Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
                MessageProducer producer = session.createProducer(session.createQueue("PAGED"));
                byte[] body = new byte[BODY_BYTES];
                for (int n = 0; n < persistent; n++) {
                    producer.send(numbered(session, body, n), DeliveryMode.PERSISTENT, 4, 0);
                    producer.send(numbered(session, body, -1), DeliveryMode.NON_PERSISTENT, 4, 0);
                    if (n % 100 == 99) {
                        session.commit(); // answered once the persistent ones are in the journal
                    }
                }
                awaitPageFiles(data.resolve("paging"));
            } finally {
                server.kill();
                connection.close();
            }
        }
        try (ServerProcess server = ServerProcess.start(data, "--config", config.toString())) {
            drainInOrder(server, "PAGED", persistent, "out of order, or a non-persistent one came back");
        }
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aPersistentBacklogOfTwiceTheHeapIsRecoveredOnA64MiBHeapByPagingAndDrainsInOrder() throws Exception {
        int messages = 70_000; // 140 MB of bodies: twice the heap, which is also the direct memory limit
        List<String> smallHeap = List.of("-Xmx64m");
        try (ServerProcess server = ServerProcess.startWithJvmOptions(data, smallHeap)) {
            Connection connection = new WharfConnectionFactory(server.url()).createConnection();
            try {
                Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
                MessageProducer producer = session.createProducer(session.createQueue("BACKLOG"));
                byte[] body = new byte[BODY_BYTES];
                for (int n = 0; n < messages; n++) {
                    producer.send(numbered(session, body, n), DeliveryMode.PERSISTENT, 4, 0);
                    if (n % 500 == 499) {
                        session.commit(); // answered once they are in the journal
                    }
                }
            } finally {
                server.kill(); // kill -9: every commit was answered, so all 70,000 are in the journal
                connection.close();
            }
        }
        // before recovery paged, it read every recovered message into memory and this start died of
        // OutOfMemoryError (direct buffer memory) before it listened
        try (ServerProcess server = ServerProcess.startWithJvmOptions(data, smallHeap)) {
            drainInOrder(server, "BACKLOG", messages, "out of order");
            assertAlive(server);
        }
    }

    /** Receives {@code count} messages numbered 0 to count - 1 in order from {@code queueName}, and no more. */
    private static void drainInOrder(ServerProcess server, String queueName, int count, String outOfOrder)
            throws JMSException {
        Connection connection = new WharfConnectionFactory(server.url()).createConnection();
        try {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            receiveInOrder(session.createConsumer(session.createQueue(queueName)), count, outOfOrder);
        } finally {
            connection.close();
        }
    }

    private static void receiveInOrder(MessageConsumer consumer, int count, String outOfOrder) throws JMSException {
        for (int n = 0; n < count; n++) {
            Message m = consumer.receive(RECEIVE_MS);
            assertNotNull(m, "message " + n + " never came (lost)");
            assertEquals(n, m.getIntProperty("n"), outOfOrder);
        }
        // the server answers a receiveNoWait's PULL after whatever it has for the consumer: nothing more is there
        assertNull(consumer.receiveNoWait(), "more messages than were sent, or one came back that should not have");
    }

    private static void assertAlive(ServerProcess server) throws Exception {
        if (!server.alive()) {
            fail("the server died:\n" + server.output());
        }
    }

    private static BytesMessage numbered(Session session, byte[] body, int n) throws JMSException {
        BytesMessage m = session.createBytesMessage();
        m.writeBytes(body);
        m.setIntProperty("n", n);
        return m;
    }

    /** Waits (up to 30 s) until the server has written a page file: the queue pages on disk when it is killed. */
    private static void awaitPageFiles(Path paging) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            if (Files.isDirectory(paging)) {
                try (Stream<Path> files = Files.walk(paging)) {
                    if (files.anyMatch(f -> f.toString().endsWith(".page"))) {
                        return;
                    }
                }
            }
            assertTrue(System.nanoTime() < deadline, "the server wrote no page file under " + paging);
            Thread.onSpinWait();
        }
    }
}
