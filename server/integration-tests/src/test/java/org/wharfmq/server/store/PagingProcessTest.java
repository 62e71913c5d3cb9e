package org.wharfmq.server.store;

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
 * drains in order (issue 22's 10-million-message test at CI size), and a kill -9 while a queue pages loses no
 * persistent message (the journal stays their durable copy) while its non-persistent paged ones are gone, as
 * non-persistent messages always are after a crash.
 */
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
                MessageConsumer consumer = session.createConsumer(queue);
                for (int n = 0; n < messages; n++) {
                    Message m = consumer.receive(RECEIVE_MS);
                    assertNotNull(m, "message " + n + " never came");
                    assertEquals(n, m.getIntProperty("n"), "out of order");
                }
                assertNull(consumer.receiveNoWait(), "more messages than were sent");
            } finally {
                connection.close();
            }
            if (!server.alive()) {
                fail("the server died:\n" + server.output());
            }
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
            Connection connection = new WharfConnectionFactory(server.url()).createConnection();
            try {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer consumer = session.createConsumer(session.createQueue("PAGED"));
                for (int n = 0; n < persistent; n++) {
                    Message m = consumer.receive(RECEIVE_MS);
                    assertNotNull(m, "persistent message " + n + " was lost");
                    assertEquals(n, m.getIntProperty("n"), "out of order, or a non-persistent one came back");
                }
                assertNull(consumer.receiveNoWait(), "a message came back that should not have");
            } finally {
                connection.close();
            }
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
