package org.wharfmq.server.store;

import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Numbered persistent messages sent to one queue of a replicated group in transactions, through the member active
 * then (one connection, no reconnection: a failover ends it), and what became of each: committed, rolled back,
 * consumed in a committed transaction, or still in a transaction left open. {@link #assertHeldBy} checks that a member
 * serving the queue holds the committed ones not consumed, in order, each once: none lost, none doubled, none rolled
 * back, consumed or left open coming back. The test's thread owns it.
 */
final class CommittedMessages implements AutoCloseable {

    static final String QUEUE = "RECOVERY.Q";
    private static final int BATCH = 5;
    /** The admin command that shows the queue, its depth among its figures. */
    private static final String[] SHOW = {"--json", "display", "queue", QUEUE};
    private static final Pattern DEPTH = Pattern.compile("\"depth\":(\\d+)");

    private final Connection connection;
    private final Session sending;
    private final MessageProducer producer;
    private final Session receiving;
    private final MessageConsumer consumer;
    /** Committed and not consumed, oldest first: what the queue holds once no transaction is open. */
    private final List<String> committed = new ArrayList<>();
    /** Sent in the producer's open transaction. */
    private int sentOpen;
    private int numbered;

    /** Connects to member {@code active} of {@code group} (its URL alone, never reconnecting). */
    CommittedMessages(ReplicatedGroup group, int active) throws JMSException {
        connection = new WharfConnectionFactory(group.url(active) + "?reconnectAttempts=0").createConnection();
        try {
            connection.start();
            sending = connection.createSession(true, Session.SESSION_TRANSACTED);
            producer = sending.createProducer(sending.createQueue(QUEUE));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            receiving = connection.createSession(true, Session.SESSION_TRANSACTED);
            consumer = receiving.createConsumer(receiving.createQueue(QUEUE));
        } catch (JMSException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    /** Commits {@code transactions} transactions of {@value #BATCH} messages each. */
    void commit(int transactions) throws JMSException {
        for (int t = 0; t < transactions; t++) {
            committed.addAll(sendBatch());
            sending.commit();
        }
    }

    /** Sends {@code transactions} transactions of {@value #BATCH} messages each and rolls each back. */
    void rollBack(int transactions) throws JMSException {
        for (int t = 0; t < transactions; t++) {
            sendBatch();
            sending.rollback();
        }
    }

    /** Sends a batch in a transaction and leaves it open: uncommitted work in flight at a kill. */
    void leaveOpen() throws JMSException {
        sentOpen += sendBatch().size();
    }

    /** Receives the {@code n} oldest committed messages in one transaction and commits it: they are gone for good. */
    void consume(int n) throws JMSException {
        receive(n);
        receiving.commit();
        committed.subList(0, n).clear();
    }

    /**
     * Receives the {@code n} oldest committed messages in a transaction left open: they are still the queue's (the
     * last receive before a kill).
     */
    void receiveOpen(int n) throws JMSException {
        receive(n);
    }

    /**
     * Waits until member {@code active}'s queue holds what was sent and not consumed, the open transactions' sends
     * included ({@code display queue}'s depth counts them): the server has every send made so far, whatever a
     * transaction's sends wait for on their way.
     */
    void awaitSent(ReplicatedGroup group, int active) {
        long expected = committed.size() + sentOpen;
        group.awaitAnswer(active, out -> depth(out) == expected, "queue " + QUEUE + " of depth " + expected, SHOW);
    }

    /**
     * Member {@code active} of {@code group} holds every committed message not consumed, each once, in the order
     * sent, and nothing else: its queue's depth is theirs before they are received (so nothing rolled back, consumed
     * or left open is there) and 0 once their receipt is committed.
     */
    void assertHeldBy(ReplicatedGroup group, int active) throws JMSException {
        assertEquals(committed.size(), depth(group, active), "queue " + QUEUE + " on member " + ReplicatedGroup.IDS[active]
                + ": its depth against the messages committed and not consumed");
        List<String> received = new ArrayList<>();
        try (Connection c = new WharfConnectionFactory(group.url(active) + "?reconnectAttempts=0")
                .createConnection()) {
            c.start();
            Session session = c.createSession(true, Session.SESSION_TRANSACTED);
            MessageConsumer receiver = session.createConsumer(session.createQueue(QUEUE));
            for (int k = 0; k < committed.size(); k++) {
                Message m = receiver.receive(ReplicatedGroup.ELECTION.toMillis());
                assertNotNull(m, "committed message " + k + " of " + committed.size() + " (" + committed.get(k)
                        + ") on member " + ReplicatedGroup.IDS[active] + "; received before it: " + received);
                received.add(((TextMessage) m).getText());
            }
            session.commit();
        }
        assertEquals(committed, received, "the committed messages on member " + ReplicatedGroup.IDS[active]);
        assertEquals(0, depth(group, active), "queue " + QUEUE + " after its committed messages were received");
    }

    /** How many messages the queue holds on member {@code i} ({@code wharf admin display queue}). */
    private static long depth(ReplicatedGroup group, int i) {
        return depth(group.awaitAnswer(i, out -> depth(out) >= 0, "queue " + QUEUE, SHOW));
    }

    /** The depth a queue's {@code --json display queue} answer gives, or -1 if it gives none. */
    static long depth(String shown) {
        Matcher depth = DEPTH.matcher(shown);
        return depth.find() ? Long.parseLong(depth.group(1)) : -1;
    }

    private List<String> sendBatch() throws JMSException {
        List<String> bodies = new ArrayList<>();
        for (int m = 0; m < BATCH; m++) {
            String body = "message-" + numbered++;
            producer.send(sending.createTextMessage(body));
            bodies.add(body);
        }
        return bodies;
    }

    private void receive(int n) throws JMSException {
        for (int k = 0; k < n; k++) {
            Message m = consumer.receive(ReplicatedGroup.ELECTION.toMillis());
            assertNotNull(m, "committed message " + k + " of " + n);
            assertEquals(committed.get(k), ((TextMessage) m).getText(), "the committed messages in order");
        }
    }

    /** Closes the connection; after a kill of its member, whatever the close meets is of no interest. */
    @Override
    public void close() {
        try {
            connection.close();
        } catch (JMSException | RuntimeException ignored) {
            // its member was killed: the connection is lost already
        }
    }
}
