package org.wharfmq.flow.runtime;

import javax.jms.BytesMessage;
import javax.jms.JMSException;

/**
 * How a bytes body crosses the JMS API between a flow and its messaging provider: read out of a received message into
 * the flow's message, and written into a message to send. Through the plain API ({@link #COPYING}) each is a copy of
 * the body; the flow host's own provider can hand the arrays over instead, since a flow never changes a body's array
 * in place (a node that changes the body makes a new one: {@link org.wharfmq.flow.FlowMessage}).
 */
public interface JmsBodies {

    /** Copies, as any JMS provider's messages allow. */
    JmsBodies COPYING = new JmsBodies() {
        @Override
        public byte[] read(BytesMessage received) throws JMSException {
            byte[] body = new byte[(int) received.getBodyLength()];
            received.readBytes(body);
            return body;
        }

        @Override
        public void write(BytesMessage created, byte[] body) throws JMSException {
            created.writeBytes(body);
        }
    };

    /** The whole body of a received message, which the flow will not change and the message no longer needs. */
    byte[] read(BytesMessage received) throws JMSException;

    /** Makes {@code body}, which nothing will change, the body of a new, empty message. */
    void write(BytesMessage created, byte[] body) throws JMSException;
}
