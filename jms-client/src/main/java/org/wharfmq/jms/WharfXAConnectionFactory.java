package org.wharfmq.jms;

import javax.jms.JMSException;
import javax.jms.XAConnection;
import javax.jms.XAConnectionFactory;
import javax.jms.XAJMSContext;
import javax.jms.XAQueueConnection;
import javax.jms.XAQueueConnectionFactory;
import javax.jms.XATopicConnection;
import javax.jms.XATopicConnectionFactory;

/**
 * Creates connections whose sessions take part in XA transactions, for a transaction manager (Narayana, Atomikos, an
 * application server) to coordinate with a database or another resource: same URL, options and user as
 * {@link WharfConnectionFactory} (whose connections it also makes), bound in JNDI the same way
 * ({@code xaConnectionFactory.NAME = url} with {@link org.wharfmq.jms.jndi.WharfInitialContextFactory}, or by
 * reference). See docs/jms-client.md, "XA".
 */
public class WharfXAConnectionFactory extends WharfConnectionFactory implements XAConnectionFactory,
        XAQueueConnectionFactory, XATopicConnectionFactory {
    private static final long serialVersionUID = 1L;

    /** A factory for {@code tcp://localhost:7414}; set another URL with {@link #setBrokerURL}. */
    public WharfXAConnectionFactory() {
    }

    /**
     * A factory for the given broker URL.
     *
     * @throws IllegalArgumentException when the URL is malformed or names an unknown option
     */
    public WharfXAConnectionFactory(String brokerURL) {
        super(brokerURL);
    }

    @Override
    public XAConnection createXAConnection() throws JMSException {
        return new WharfXAConnection(url(), getUserName(), password(), MessagingDomain.BOTH);
    }

    @Override
    public XAConnection createXAConnection(String userName, String password) throws JMSException {
        return new WharfXAConnection(url(), userName, password, MessagingDomain.BOTH);
    }

    @Override
    public XAQueueConnection createXAQueueConnection() throws JMSException {
        return new WharfXAConnection(url(), getUserName(), password(), MessagingDomain.QUEUE);
    }

    @Override
    public XAQueueConnection createXAQueueConnection(String userName, String password) throws JMSException {
        return new WharfXAConnection(url(), userName, password, MessagingDomain.QUEUE);
    }

    @Override
    public XATopicConnection createXATopicConnection() throws JMSException {
        return new WharfXAConnection(url(), getUserName(), password(), MessagingDomain.TOPIC);
    }

    @Override
    public XATopicConnection createXATopicConnection(String userName, String password) throws JMSException {
        return new WharfXAConnection(url(), userName, password, MessagingDomain.TOPIC);
    }

    /** An XAJMSContext on a new XA connection; its session is created on first use. */
    @Override
    public XAJMSContext createXAContext() {
        return createXAContext(getUserName(), password());
    }

    /**
     * An XAJMSContext on a new XA connection, logged in as {@code userName}.
     *
     * @throws javax.jms.JMSRuntimeException when the connection fails (JMSSecurityRuntimeException when the server
     *                                       refuses the user)
     */
    @Override
    public XAJMSContext createXAContext(String userName, String password) {
        try {
            return new WharfXAJMSContext(new WharfXAConnection(url(), userName, password, MessagingDomain.BOTH));
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }
}
