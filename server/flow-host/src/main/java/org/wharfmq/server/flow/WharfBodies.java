package org.wharfmq.server.flow;

import org.wharfmq.flow.runtime.JmsBodies;
import org.wharfmq.jms.message.WharfBytesMessage;

import javax.jms.BytesMessage;
import javax.jms.JMSException;

/**
 * The flows' bodies on the flow host's own connections: a received body's array is the flow's message's, and the
 * array of a body the flow sends unchanged is the sent message's, where the JMS API would copy each (a flow never
 * changes a body's array in place). Another provider's messages are copied ({@link JmsBodies#COPYING}).
 */
final class WharfBodies implements JmsBodies {

    static final WharfBodies INSTANCE = new WharfBodies();

    private WharfBodies() {
    }

    @Override
    public byte[] read(BytesMessage received) throws JMSException {
        return received instanceof WharfBytesMessage wharf ? wharf.bodyArray() : COPYING.read(received);
    }

    @Override
    public void write(BytesMessage created, byte[] body) throws JMSException {
        if (created instanceof WharfBytesMessage wharf) {
            wharf.writeBodyArray(body);
        } else {
            COPYING.write(created, body);
        }
    }
}
