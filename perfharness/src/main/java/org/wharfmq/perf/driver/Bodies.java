package org.wharfmq.perf.driver;

import org.wharfmq.perf.options.MessageType;
import org.wharfmq.perf.options.OptionException;
import org.wharfmq.perf.options.PerfOptions;

import javax.jms.BytesMessage;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Builds the messages the workers send: a text or bytes body of the requested size ({@code -ms}), or the content
 * of a message file ({@code -mf}; UTF-8 for a text body).
 */
final class Bodies {

    private final MessageType type;
    private final byte[] bytes;
    private final String text;

    private Bodies(MessageType type, byte[] bytes) {
        this.type = type;
        this.bytes = bytes;
        this.text = type == MessageType.TEXT ? new String(bytes, StandardCharsets.UTF_8) : null;
    }

    /** The bodies {@code options} ask for. */
    static Bodies of(PerfOptions options) {
        if (!options.messageFile().isEmpty()) {
            Path file = Path.of(options.messageFile());
            try {
                return new Bodies(options.messageType(), Files.readAllBytes(file));
            } catch (IOException e) {
                throw new OptionException("-mf " + options.messageFile() + ": cannot read the message file: " + e);
            }
        }
        byte[] bytes = new byte[options.messageSize()];
        Arrays.fill(bytes, (byte) 'W');
        return new Bodies(options.messageType(), bytes);
    }

    /** The body's bytes (not a copy: callers only read them). */
    byte[] bytes() {
        return bytes;
    }

    /** The body's length in bytes. */
    int size() {
        return bytes.length;
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
