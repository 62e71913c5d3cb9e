package org.wharfmq.jms;

import org.wharfmq.protocol.frame.Frame;

import javax.jms.JMSException;
import javax.jms.XAConnection;
import javax.jms.XAQueueConnection;
import javax.jms.XAQueueSession;
import javax.jms.XASession;
import javax.jms.XATopicConnection;
import javax.jms.XATopicSession;

/**
 * A connection whose sessions can take part in XA transactions ({@link WharfXAConnectionFactory}): besides what every
 * {@link WharfConnection} does, it makes {@link WharfXASession}s. A transaction manager commits and recovers through
 * their XAResources on this connection, so close it only once their transactions have completed.
 */
public final class WharfXAConnection extends WharfConnection implements XAConnection, XAQueueConnection,
        XATopicConnection {

    WharfXAConnection(BrokerUrl url, String user, String password, MessagingDomain domain) throws JMSException {
        super(url, user, password, domain);
    }

    @Override
    public XASession createXASession() throws JMSException {
        return (XASession) openSession(Frame.SESSION_XA, MessagingDomain.BOTH);
    }

    /** An XA session that refuses publish/subscribe methods. Not on an XATopicConnection. */
    @Override
    public XAQueueSession createXAQueueSession() throws JMSException {
        requireDomain(MessagingDomain.QUEUE, "createXAQueueSession");
        return (XAQueueSession) openSession(Frame.SESSION_XA, MessagingDomain.QUEUE);
    }

    /** An XA session that refuses point-to-point methods. Not on an XAQueueConnection. */
    @Override
    public XATopicSession createXATopicSession() throws JMSException {
        requireDomain(MessagingDomain.TOPIC, "createXATopicSession");
        return (XATopicSession) openSession(Frame.SESSION_XA, MessagingDomain.TOPIC);
    }
}
