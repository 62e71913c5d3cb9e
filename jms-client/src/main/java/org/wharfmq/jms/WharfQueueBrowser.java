package org.wharfmq.jms;

import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.CoreBrowser;
import org.wharfmq.client.core.CoreConsumer;

import org.wharfmq.jms.message.MessageCodec;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.jms.message.WharfObjectMessage;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import javax.jms.JMSRuntimeException;
import javax.jms.Message;
import javax.jms.Queue;
import javax.jms.QueueBrowser;
import java.util.Enumeration;
import java.util.NoSuchElementException;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A QueueBrowser: each {@link #getEnumeration()} is a fresh look at the messages waiting on the queue at that
 * moment, in delivery order (priority, then FIFO), filtered by the selector, without consuming or locking any.
 *
 * <p>On the wire an enumeration is a consumer with flag 8 browser ({@code docs/protocol.md}, "Browsing"): the
 * server sends up to {@code prefetch} messages ahead, the enumeration returns credit in batches of half the
 * window as the application reads, and when its buffer is empty it sends PULL: a PULL_DONE with nothing before it
 * means the browse is over. So a deep queue is browsed page by page, never all at once.
 *
 * <p>An enumeration is the JMS face of a core browse ({@code CoreBrowser}), which owns the buffer, the credit and the
 * PULLs, and skips a message that has expired or cannot be decoded; the browser's {@link Decoding} makes JMS messages
 * of what it shows. An enumeration is used by one thread at a time (like the session).
 *
 * <p>A reconnection ends the enumerations open at the time: the server's place in the queue went with the link, and
 * starting again from the head would show messages twice. Their next {@code hasMoreElements} throws saying so; the
 * browser itself works on, and a new enumeration browses the queue as it is then.
 */
public final class WharfQueueBrowser implements QueueBrowser {

    private final WharfSession session;
    private final Queue queue;
    private final WireDestination wire;
    private final String selector;
    private final CopyOnWriteArrayList<Cursor> open = new CopyOnWriteArrayList<>();
    private final Decoding decoding = new Decoding();
    private volatile boolean closed;

    /** @param selector as the server accepted it ({@code CoreBrowser.validate}) */
    WharfQueueBrowser(WharfSession session, Queue queue, WireDestination wire, String selector) {
        this.session = session;
        this.queue = queue;
        this.wire = wire;
        this.selector = selector;
    }

    private void checkOpen() throws JMSException {
        if (closed) {
            throw new IllegalStateException("The QueueBrowser is closed");
        }
        session.checkOpen();
    }

    @Override
    public Queue getQueue() throws JMSException {
        checkOpen();
        return queue;
    }

    @Override
    public String getMessageSelector() throws JMSException {
        checkOpen();
        return selector;
    }

    /** A new enumeration of the messages waiting on the queue now. */
    @Override
    public Enumeration<Message> getEnumeration() throws JMSException {
        checkOpen();
        WharfConnection connection = session.connection();
        try {
            Cursor cursor = new Cursor(CoreBrowser.open(session.core(), wire, selector,
                    connection.url().consumerWindowBytes()));
            open.add(cursor);
            return cursor;
        } catch (ClientException e) {
            throw connection.toJms(e);
        }
    }

    /** Closes every enumeration still open; later calls throw IllegalStateException. */
    @Override
    public void close() {
        closed = true;
        for (Cursor c : open) {
            c.finish();
        }
        session.browserClosed(this);
    }

    /** The browses' {@link CoreConsumer.Decoder} of JMS messages: one per browser. */
    private final class Decoding implements CoreConsumer.Decoder<WharfMessage> {
        @Override
        public WharfMessage decode(Frame.Deliver delivery) {
            WharfMessage m = MessageCodec.decode(delivery.message(), delivery.deliveryCount());
            if (m instanceof WharfObjectMessage object) {
                object.setDeserializationPolicy(session.connection().url().deserialization());
            }
            return m;
        }

        @Override
        public String messageId(WharfMessage message) {
            return message.getJMSMessageID();
        }

        /** Never called: a browse hands nothing out twice (a reconnection ends it). */
        @Override
        public void markRedelivered(WharfMessage message) {
            throw new UnsupportedOperationException("A browse is never redelivered");
        }
    }

    /** One enumeration: a core browse, and the next message, decoded. */
    final class Cursor implements Enumeration<Message> {
        private final CoreBrowser core;
        /** The next message to return, decoded; kept by hasMoreElements for nextElement. */
        private WharfMessage next;

        Cursor(CoreBrowser core) {
            this.core = core;
        }

        /**
         * Whether another message follows; the core skips expired ones and those it cannot decode. Throws JMSRuntimeException (an Enumeration
         * cannot throw JMSException) when the connection is lost or the server does not answer: a browse is never
         * cut short silently.
         */
        @Override
        public boolean hasMoreElements() {
            try {
                return advance();
            } catch (JMSException e) {
                finish();
                throw JmsErrors.toRuntime(e);
            }
        }

        @Override
        public Message nextElement() {
            if (!hasMoreElements()) {
                throw new NoSuchElementException("The browse of " + queue + " has no more messages");
            }
            WharfMessage m = next;
            next = null;
            return m;
        }

        private boolean advance() throws JMSException {
            if (next == null) {
                try {
                    next = core.next(decoding);
                } catch (ClientException e) {
                    throw session.connection().toJms(e);
                }
                if (next == null) {
                    finish();
                    return false;
                }
            }
            return true;
        }

        /** Ends the enumeration: releases what is buffered and tells the server (no answer awaited). */
        void finish() {
            core.finish();
            next = null;
            open.remove(this);
        }
    }

    @Override
    public String toString() {
        return "WharfQueueBrowser[" + queue + (selector != null ? ", selector=" + selector : "") + "]";
    }
}
