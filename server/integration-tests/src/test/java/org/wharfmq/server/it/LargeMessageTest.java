package org.wharfmq.server.it;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.management.QueueStatus;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.QueueBrowser;
import javax.jms.Session;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wharfmq.server.it.LargeMessages.TWENTY_MB;
import static org.wharfmq.server.it.LargeMessages.TWO_MB;

/**
 * Messages of 2 MB and 20 MB end to end through a real server and the real client, persistent and not: a request
 * and its reply, a queue that pages them (the server's memory budget is smaller than one message), a browse, a
 * restart; the server's memory, as its management view counts it, stays within its budget. And a message past
 * maxMessageLength is refused naming its size, the limit and the setting. The 100 MB message through a kill -9 is
 * {@code store.LargeMessageProcessTest}'s.
 *
 * <p>The budget's rule (docs/resilience.md, "Paging"): a queue pages a message that arrives while it, or the server,
 * is already over budget; the message that crosses the budget is kept in memory. So a queue holds at most its budget
 * plus that one message: a large message alone on a queue stays in memory whole.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LargeMessageTest {

    /** The server's memory budget for messages: 8 MiB, less than one 20 MB message, so queues page. */
    private static final long BUDGET = 8L * 1024 * 1024;

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.configured(c -> c.maxMemoryBytes(BUDGET));

    /** How long the paging thread may take to write the paged messages and let their bytes go. */
    private static final long PAGE_WRITE_MILLIS = 30_000;

    /** What a message counts beyond its body: its headers and the server's objects for it. */
    private static final int MESSAGE_OVERHEAD = 64 * 1024;

    private static final int[] MODES = {DeliveryMode.NON_PERSISTENT, DeliveryMode.PERSISTENT};

    /**
     * A requester sends 2 MB and 20 MB requests, persistent and not (the responder commits each round trip when
     * persistent), and gets each reply byte for byte; while a request waits, alone on its queue, the server holds no
     * more than the budget and that request.
     */
    @Test
    void requestsAndRepliesOf2And20MbArriveIntactWithinTheMemoryBudget() throws Exception {
        Session requester = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Connection responderConnection = WHARF.connect(Transport.TCP);
        String requestName = WHARF.queueName("request");
        Queue requests = requester.createQueue(requestName);
        Queue replies = requester.createQueue(WHARF.queueName("reply"));
        MessageProducer sender = requester.createProducer(requests);
        MessageConsumer replyConsumer = requester.createConsumer(replies);
        int seed = 0;
        for (int mode : MODES) {
            boolean persistent = mode == DeliveryMode.PERSISTENT;
            Session responder = responderConnection.createSession(persistent, persistent ? Session.SESSION_TRANSACTED
                    : Session.AUTO_ACKNOWLEDGE);
            MessageConsumer requestConsumer = responder.createConsumer(requests);
            MessageProducer replier = responder.createProducer(null);
            for (int size : new int[] {TWO_MB, TWENTY_MB}) {
                Message request = LargeMessages.message(requester, size, ++seed);
                request.setJMSReplyTo(replies);
                sender.send(request, mode, 4, 0);
                Send.barrier(requester); // the request is on its queue
                assertWithinBudget(requestName, size);

                Message received = Receive.next(requestConsumer);
                int requestSeed = LargeMessages.assertIntact(received);
                Message reply = LargeMessages.message(responder, size, requestSeed + 1000);
                reply.setJMSCorrelationID(received.getJMSMessageID());
                replier.send(received.getJMSReplyTo(), reply, mode, 4, 0);
                if (persistent) {
                    responder.commit();
                }

                Message answer = Receive.next(replyConsumer);
                assertEquals(request.getJMSMessageID(), answer.getJMSCorrelationID());
                assertEquals(seed + 1000, LargeMessages.assertIntact(answer));
                assertEquals(mode, answer.getJMSDeliveryMode());
            }
            requestConsumer.close();
        }
        Receive.nothingMore(replyConsumer);
    }

    /**
     * Six large messages (four of 2 MB then two of 20 MB, persistent and not) wait on a queue: past the budget the
     * queue pages them, the 20 MB ones among them, holding no more than the budget and a 2 MB message being paged
     * (it holds its bytes until the paging thread has written it); a browse sees all six intact (holding, as it reads
     * them back, no more than one 20 MB message past the budget), and a consumer then gets them in order.
     */
    @Test
    void aQueueOfLargeMessagesPagesThemAndABrowseAndAConsumerGetThemIntact() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        String name = WHARF.queueName("paged");
        Queue queue = session.createQueue(name);
        List<Integer> sent = sendSix(session, queue);

        QueueStatus status = assertWithinBudget(name, TWO_MB);
        assertEquals(6, status.depth());
        assertTrue(status.paged() >= 2, () -> "the 20 MB messages come past the budget, they are paged: " + status);

        QueueBrowser browser = session.createBrowser(queue);
        List<Integer> browsed = new ArrayList<>();
        for (Object m : Collections.list(browser.getEnumeration())) {
            browsed.add(LargeMessages.assertIntact((Message) m));
        }
        browser.close();
        assertEquals(sent, browsed, "the browse saw every message, in order");
        assertEquals(6, WHARF.server().management().browse(name, null, 10, 16).size(), "the administrators' browse too");
        assertWithinBudget(name, TWENTY_MB); // a browse reads paged messages back: one of 20 MB may be held

        MessageConsumer consumer = session.createConsumer(queue);
        List<Integer> received = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            received.add(LargeMessages.assertIntact(Receive.next(consumer)));
            assertWithinBudget(name, TWENTY_MB); // a paged one read back for its consumer may cross the budget
        }
        assertEquals(sent, received);
        Receive.nothingMore(consumer);
        assertEquals(0, WHARF.depth(name));
    }

    /** After a restart the persistent 2 MB and 20 MB messages are there, intact and in order, and the others are gone. */
    @Test
    void persistentLargeMessagesSurviveARestartIntact() throws Exception {
        try (TestServer server = TestServer.start(c -> c.maxMemoryBytes(BUDGET))) {
            List<Integer> persistent;
            Connection connection = new org.wharfmq.jms.WharfConnectionFactory(server.server().tcpUrl()).createConnection();
            try {
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                List<Integer> sent = sendSix(session, session.createQueue("LARGE.RESTART"));
                persistent = List.of(sent.get(1), sent.get(3), sent.get(5)); // sendSix alternates non-persistent, persistent
            } finally {
                connection.close();
            }
            server.restart();
            assertEquals(3, server.server().management().queue("LARGE.RESTART").depth(), "the persistent ones only");
            connection = new org.wharfmq.jms.WharfConnectionFactory(server.server().tcpUrl()).createConnection();
            try {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer consumer = session.createConsumer(session.createQueue("LARGE.RESTART"));
                for (int seed : persistent) {
                    assertEquals(seed, LargeMessages.assertIntact(Receive.next(consumer)));
                }
                Receive.nothingMore(consumer);
            } finally {
                connection.close();
            }
        }
    }

    /**
     * A message just past the default maxMessageLength (a 100 MiB body with its headers) is refused naming its
     * length, the limit and the setting; the session goes on.
     */
    @Test
    @Tag("slow")
    void aMessagePastMaxMessageLengthIsRefusedNamingItsLengthTheLimitAndTheSetting() throws Exception {
        int limit = Configuration.MAX_MESSAGE_LENGTH.defaultValue();
        assertEquals(limit, WHARF.server().config().maxMessageLength(), "the default limit");
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("too-long"));
        MessageProducer producer = session.createProducer(queue);
        Message tooLong = LargeMessages.message(session, limit, 7);
        for (int mode : MODES) {
            JMSException refused = assertThrows(JMSException.class, () -> producer.send(tooLong, mode, 4, 0));
            assertEquals("MESSAGE_TOO_LARGE", refused.getErrorCode());
            String why = refused.getMessage(); // the client refuses it before sending, as the server would
            Matcher length = Pattern.compile("The message is (\\d+) bytes long").matcher(why);
            assertTrue(length.find(), why);
            long bytes = Long.parseLong(length.group(1));
            assertTrue(bytes > limit && bytes < limit + 1024, () -> "names its own length, the body and its headers: " + why);
            assertTrue(why.contains("maximum message length of " + limit + " bytes (setting maxMessageLength)")
                    && why.contains("raise maxMessageLength"), why);
        }
        producer.send(LargeMessages.message(session, TWO_MB, 8));
        MessageConsumer consumer = session.createConsumer(queue);
        assertEquals(8, LargeMessages.assertIntact(Receive.next(consumer)));
        Receive.nothingMore(consumer);
        assertEquals(0, WHARF.depth(queue.getQueueName()));
    }

    /**
     * Sends four 2 MB messages then two 20 MB ones, alternately non-persistent and persistent, and waits until all
     * are queued; their seeds.
     */
    private static List<Integer> sendSix(Session session, Queue queue) throws JMSException {
        MessageProducer producer = session.createProducer(queue);
        List<Integer> seeds = new ArrayList<>();
        int seed = 100;
        for (int size : new int[] {TWO_MB, TWO_MB, TWENTY_MB}) {
            for (int mode : MODES) {
                producer.send(LargeMessages.message(session, size, ++seed), mode, 4, 0);
                seeds.add(seed);
            }
        }
        Send.barrier(session);
        return seeds;
    }

    /**
     * Waits until the queue and the whole server hold no more in memory, as management counts it, than the budget and
     * the one message of {@code crossing} bytes that may cross it (with its headers and the server's objects), and
     * returns the queue's status. A paged message holds its bytes, and counts them, until the paging thread has
     * written it (docs/resilience.md, "Paging"): the figure falls as it writes, so it is read until it is within
     * bounds, for at most {@link #PAGE_WRITE_MILLIS}.
     */
    private static QueueStatus assertWithinBudget(String queue, int crossing) {
        long most = BUDGET + crossing + MESSAGE_OVERHEAD;
        long deadline = System.currentTimeMillis() + PAGE_WRITE_MILLIS;
        while (true) {
            QueueStatus status = WHARF.server().management().queue(queue);
            long used = WHARF.server().queueManager().memoryBudget().usedBytes();
            if (status.memoryBytes() <= most && used <= most) {
                return status;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("the queue holds " + status.memoryBytes() + " bytes in memory and the server "
                        + used + ", more than the budget of " + BUDGET + " and one message of " + crossing
                        + " bytes, " + PAGE_WRITE_MILLIS + " ms on: " + status);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }
}
