package org.wharfmq.perf.driver;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Session;

/**
 * A Subscriber's {@code -dd D}: D non-durable subscriptions on topics {@code <d>DUMMY<n>} that nothing is
 * published to, held on one connection for the whole run (PS-T: the cost of a publication must depend on the
 * subscriptions it matches, not on these). No thread: the consumers only exist.
 */
final class DummySubscriptions implements AutoCloseable {

    /** Consumers per session (a limit on how much one session holds, not on the total). */
    private static final int PER_SESSION = 1000;

    private final Connection connection;

    private DummySubscriptions(Connection connection) {
        this.connection = connection;
    }

    /** Subscribes {@code count} times on distinct never-published topics under {@code prefix}. */
    static DummySubscriptions open(Provider provider, String prefix, int count) throws JMSException {
        Connection connection = provider.connect();
        try {
            Session session = null;
            for (int i = 0; i < count; i++) {
                if (i % PER_SESSION == 0) {
                    session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                }
                session.createConsumer(provider.topic(session, prefix + "DUMMY" + i));
            }
            connection.start();
            return new DummySubscriptions(connection);
        } catch (JMSException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    @Override
    public void close() throws JMSException {
        connection.close();
    }
}
