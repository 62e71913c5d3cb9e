package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The IBM MQ request/reply pattern under concurrency: many requesters share one REPLY queue and each picks out its
 * own reply with a {@code JMSCorrelationID = '<request id>'} selector on a consumer opened per request. Every
 * request must get exactly its one reply; nothing may be left over or duplicated.
 */
@Timeout(120)
class RequestReplyTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private static final int REQUESTERS = 64;
    private static final int RESPONDERS = 8;
    private static final int REQUESTS_EACH = 50;
    private static final int SESSIONS_PER_CONNECTION = 16;
    private static final long REPLY_TIMEOUT_MS = 30_000;

    @Test
    void everyRequestGetsExactlyItsOwnReply() throws Exception {
        String requestQueue = WHARF.queueName("request");
        String replyQueue = WHARF.queueName("reply");
        AtomicBoolean responding = new AtomicBoolean(true);
        Set<String> answeredRequestIds = ConcurrentHashMap.newKeySet();
        Set<String> duplicateAnswers = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(REQUESTERS + RESPONDERS);
        try {
            Connection responderConnection = WHARF.connect(Transport.TCP);
            List<Future<Integer>> responders = new ArrayList<>();
            for (int r = 0; r < RESPONDERS; r++) {
                Session session = responderConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                responders.add(pool.submit(() -> respond(session, requestQueue, responding)));
            }

            List<Connection> requesterConnections = new ArrayList<>();
            for (int c = 0; c < REQUESTERS / SESSIONS_PER_CONNECTION; c++) {
                requesterConnections.add(WHARF.connect(Transport.TCP));
            }
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> requesters = new ArrayList<>();
            for (int q = 0; q < REQUESTERS; q++) {
                Session session = requesterConnections.get(q / SESSIONS_PER_CONNECTION)
                        .createSession(false, Session.AUTO_ACKNOWLEDGE);
                int requester = q;
                requesters.add(pool.submit(() -> {
                    start.await();
                    return request(session, requester, requestQueue, replyQueue, answeredRequestIds,
                            duplicateAnswers);
                }));
            }
            start.countDown();

            int replies = 0;
            for (Future<Integer> requester : requesters) {
                replies += requester.get(90, TimeUnit.SECONDS);
            }
            responding.set(false);
            int served = 0;
            for (Future<Integer> responder : responders) {
                served += responder.get(10, TimeUnit.SECONDS);
            }

            assertEquals(REQUESTERS * REQUESTS_EACH, replies, "replies received");
            assertEquals(REQUESTERS * REQUESTS_EACH, served, "requests served");
            assertEquals(Set.of(), duplicateAnswers, "requests answered twice");
            assertEquals(REQUESTERS * REQUESTS_EACH, answeredRequestIds.size());

            // orderly closes: whatever a session still held unacknowledged would go back to its queue now
            Closing.closeWithin(responderConnection, "responder connection");
            for (Connection connection : requesterConnections) {
                Closing.closeWithin(connection, "requester connection");
            }
            assertEquals(0, WHARF.depth(requestQueue), "requests left over");
            assertEquals(0, WHARF.depth(replyQueue), "replies left over (duplicates or misrouted)");
        } finally {
            responding.set(false);
            pool.shutdownNow();
        }
    }

    private static int request(Session session, int requester, String requestQueue, String replyQueue,
                               Set<String> answeredRequestIds, Set<String> duplicateAnswers) throws Exception {
        Queue replyTo = session.createQueue(replyQueue);
        MessageProducer producer = session.createProducer(session.createQueue(requestQueue));
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        int replies = 0;
        for (int i = 0; i < REQUESTS_EACH; i++) {
            String payload = "req-" + requester + "-" + i;
            TextMessage request = session.createTextMessage(payload);
            request.setJMSReplyTo(replyTo);
            producer.send(request);
            String requestId = request.getJMSMessageID();
            MessageConsumer consumer = session.createConsumer(replyTo, "JMSCorrelationID = '" + requestId + "'");
            Message reply = consumer.receive(REPLY_TIMEOUT_MS);
            consumer.close();
            assertNotNull(reply, "no reply to " + payload + " (" + requestId + ") within " + REPLY_TIMEOUT_MS + " ms");
            assertEquals(requestId, reply.getJMSCorrelationID());
            assertEquals("reply-to:" + payload, assertInstanceOf(TextMessage.class, reply).getText());
            if (!answeredRequestIds.add(requestId)) {
                duplicateAnswers.add(requestId);
            }
            replies++;
        }
        return replies;
    }

    private static int respond(Session session, String requestQueue, AtomicBoolean responding) throws Exception {
        MessageConsumer requests = session.createConsumer(session.createQueue(requestQueue));
        MessageProducer replies = session.createProducer(null); // anonymous: the destination is each JMSReplyTo
        replies.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        int served = 0;
        while (responding.get()) {
            Message request = requests.receive(100);
            if (request == null) {
                continue;
            }
            TextMessage reply = session.createTextMessage("reply-to:" + ((TextMessage) request).getText());
            reply.setJMSCorrelationID(request.getJMSMessageID());
            assertTrue(request.getJMSReplyTo() instanceof Queue, "request carries JMSReplyTo");
            replies.send(request.getJMSReplyTo(), reply);
            served++;
        }
        return served;
    }
}
