package org.wharfmq.perf.driver;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.io.PrintStream;
import java.util.Locale;

/**
 * A Subscriber's {@code -dd D}: D non-durable subscriptions on topics {@code <d>DUMMY<n>} that nothing is
 * published to, held on one connection for the whole run (PS-T: the cost of a publication must depend on the
 * subscriptions it matches, not on these). No thread: the consumers only exist.
 *
 * <p>Ready means the server holds them, which the server says, not a time: each subscription is created by a call
 * the server answers (Wharf's, Artemis's and ActiveMQ Classic's clients all wait for the server's answer to a
 * consumer's creation), and the count it has answered is printed as it grows ({@link Driver#DUMMIES_LINE}, every
 * {@value #PROGRESS_EVERY}), so the runner waits as long as the server goes on taking them and can say how many it
 * took when it stops. Once all are answered, one probe publication on the last dummy topic must reach its
 * subscription: the server routes to them (the probe is received, so nothing stays behind).
 */
final class DummySubscriptions implements AutoCloseable {

    /** Consumers per session (a limit on how much one session holds, not on the total). */
    private static final int PER_SESSION = 1000;
    /** Confirmed subscriptions between two progress lines. */
    static final int PROGRESS_EVERY = 500;

    private final Connection connection;

    private DummySubscriptions(Connection connection) {
        this.connection = connection;
    }

    /**
     * Subscribes {@code count} times on distinct never-published topics under {@code prefix}, printing the progress
     * on {@code out}, then probes the last subscription.
     *
     * @param probeMillis how long the probe publication may take to reach its subscription (the driver's {@code -to})
     * @throws JMSException naming how many subscriptions the server had confirmed when it refused one, or that the
     *                      probe did not arrive
     */
    static DummySubscriptions open(Provider provider, String prefix, int count, PrintStream out, long probeMillis)
            throws JMSException {
        Connection connection = provider.connect();
        try {
            Session session = null;
            MessageConsumer last = null;
            for (int i = 0; i < count; i++) {
                if (i % PER_SESSION == 0) {
                    session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                }
                try {
                    last = session.createConsumer(provider.topic(session, topic(prefix, i)));
                } catch (JMSException e) {
                    JMSException refused = new JMSException(String.format(Locale.ROOT, "the server refused dummy "
                            + "subscription %,d of %,d (%,d confirmed before it): %s", i + 1, count, i, e.getMessage()));
                    refused.initCause(e);
                    throw refused;
                }
                if ((i + 1) % PROGRESS_EVERY == 0 || i + 1 == count) {
                    out.println(progressLine(i + 1, count));
                    out.flush();
                }
            }
            connection.start();
            if (last != null) {
                probe(provider, connection, last, topic(prefix, count - 1), probeMillis);
            }
            return new DummySubscriptions(connection);
        } catch (JMSException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    /** The progress line after {@code confirmed} of {@code count} subscriptions. */
    static String progressLine(int confirmed, int count) {
        return Driver.DUMMIES_LINE + " confirmed=" + confirmed + " of=" + count;
    }

    private static String topic(String prefix, int i) {
        return prefix + "DUMMY" + i;
    }

    /** Publishes one message on {@code topic} and receives it on its dummy subscription {@code consumer}. */
    private static void probe(Provider provider, Connection connection, MessageConsumer consumer, String topic, long millis)
            throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        try (MessageProducer producer = session.createProducer(provider.topic(session, topic))) {
            producer.send(session.createTextMessage("wharf-perf dummy subscription probe"));
        }
        if (consumer.receive(millis) == null) {
            throw new JMSException("the server confirmed every dummy subscription, but a probe published on " + topic
                    + " did not reach its subscription within " + millis / 1000 + " s");
        }
        session.close();
    }

    @Override
    public void close() throws JMSException {
        connection.close();
    }
}
