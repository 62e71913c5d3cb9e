package org.wharfmq.perf.driver;

import org.wharfmq.perf.options.MessageType;

import javax.jms.BytesMessage;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.Arrays;

/** Builds the messages the workers send: a text or bytes body of the requested size. */
final class Bodies {

    private final MessageType type;
    private final byte[] bytes;
    private final String text;

    Bodies(MessageType type, int size) {
        this.type = type;
        this.bytes = new byte[size];
        Arrays.fill(bytes, (byte) 'W');
        this.text = type == MessageType.TEXT ? "W".repeat(size) : null;
    }

    /** A new message carrying the body. */
    Message create(Session session) throws JMSException {
        if (type == MessageType.TEXT) {
            return session.createTextMessage(text);
        }
        BytesMessage m = session.createBytesMessage();
        m.writeBytes(bytes);
        return m;
    }

    /** A reply of the same type and length as {@code request}, its body copied from the request's. */
    static Message replyTo(Session session, Message request) throws JMSException {
        if (request instanceof TextMessage t) {
            return session.createTextMessage(t.getText());
        }
        if (request instanceof BytesMessage b) {
            byte[] body = new byte[(int) b.getBodyLength()];
            b.readBytes(body);
            BytesMessage reply = session.createBytesMessage();
            reply.writeBytes(body);
            return reply;
        }
        return session.createMessage();
    }
}
