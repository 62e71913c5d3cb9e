package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.transport.ConnectionInfo;

import javax.jms.Connection;
import javax.jms.MessageConsumer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client that sends requests and never reads the answers, against the real server: once more than
 * maxOutboundBytesPerConnection bytes wait to be sent to it, the server stops reading it, so what it holds for that
 * client stays bounded (it reads nothing more: the client's own writes block), while other clients keep working.
 */
@Timeout(60)
class UnreadAnswersTest {

    private static final int LIMIT = 256 * 1024;
    /** STATUS_REQUEST is answered by an ERROR that repeats its command: about 2 KB of answer per 2 KB of request. */
    private static final String COMMAND = "x".repeat(2_000);
    /**
     * 40 MB of requests, whose answers the old server buffered all (it read them all); loopback sockets' buffers take
     * several MB of them before the server's own buffer grows.
     */
    private static final int REQUESTS = 20_000;
    /**
     * What may wait beyond the limit: the answers to the frames of the read that crossed it (a read takes at most
     * 64 KiB, about 30 of these requests), with room to spare.
     */
    private static final int SLACK = 256 * 1024;
    private static final long WAIT_MILLIS = 20_000;

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.configured(c -> c.maxOutboundBytesPerConnection(LIMIT));

    @Test
    void aClientThatNeverReadsItsAnswersIsNoLongerReadOnceTheyPileUp() throws Exception {
        try (RawFrameClient flood = RawFrameClient.connect(WHARF.server().tcpPort())) {
            flood.handshake();
            byte[] request = RawFrameClient.encode(new Frame.StatusRequest(1, COMMAND));
            long total = (long) request.length * REQUESTS;
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < REQUESTS; i++) {
                        flood.sendRaw(request); // blocks once the server stops reading: ends with the socket
                    }
                } catch (IOException closed) {
                    // the test closed the socket
                }
            }, "unread-answers-writer");
            writer.setDaemon(true);
            writer.start();

            String address = String.valueOf(flood.localAddress());
            // the server either holds the connection's reading, or (without the limit) reads every request
            ConnectionInfo held = await(address, c -> c.readingHeld() || c.bytesIn() >= total);
            assertTrue(held.readingHeld(), () -> "the server read all " + total + " bytes of requests and holds "
                    + held.bytesWaiting() + " bytes of answers for a client that reads none");
            assertTrue(held.bytesWaiting() > LIMIT, held::toString);
            assertTrue(held.bytesWaiting() <= LIMIT + SLACK, () -> "answers held beyond the limit: " + held);
            assertTrue(held.bytesIn() < total, held::toString);

            roundTrip(WHARF.connect(Transport.TCP)); // the others are served meanwhile, on every event loop

            ConnectionInfo later = info(address);
            assertTrue(later.readingHeld(), later::toString);
            assertEquals(held.bytesIn(), later.bytesIn(), "nothing more was read from the held connection");
            assertTrue(later.bytesWaiting() <= LIMIT + SLACK, () -> "answers held beyond the limit: " + later);
        }
        awaitGone();
    }

    private static void roundTrip(Connection connection) throws Exception {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("unread"));
        MessageConsumer consumer = session.createConsumer(queue);
        session.createProducer(queue).send(session.createTextMessage("served"));
        assertEquals("served", ((TextMessage) Receive.next(consumer)).getText());
    }

    /** The connection from {@code address} once {@code condition} holds for it, as the server describes it. */
    private static ConnectionInfo await(String address, Predicate<ConnectionInfo> condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        while (true) {
            ConnectionInfo info = info(address);
            if (condition.test(info)) {
                return info;
            }
            assertTrue(System.nanoTime() < deadline, () -> "not within " + WAIT_MILLIS + " ms: " + info);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    private static ConnectionInfo info(String address) {
        return WHARF.server().management().connections().stream().filter(c -> c.address().equals(address))
                .findFirst().orElseThrow(() -> new AssertionError("no connection from " + address));
    }

    /** The held connection, closed by its client, is released as any other (its answers dropped). */
    private static void awaitGone() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        while (WHARF.server().management().connections().stream().anyMatch(c -> !c.transport().equals("vm")
                && c.readingHeld())) {
            assertFalse(System.nanoTime() > deadline, "the held connection was not released after its client closed");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }
}
