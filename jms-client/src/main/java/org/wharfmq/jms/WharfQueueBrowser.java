package org.wharfmq.jms;

import org.wharfmq.client.core.ConnectedLink;
import org.wharfmq.client.core.DeliveryTarget;

import org.wharfmq.jms.message.MessageCodec;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.jms.message.WharfObjectMessage;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import javax.jms.JMSRuntimeException;
import javax.jms.Message;
import javax.jms.Queue;
import javax.jms.QueueBrowser;
import java.util.ArrayDeque;
import java.util.Enumeration;
import java.util.NoSuchElementException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A QueueBrowser: each {@link #getEnumeration()} is a fresh look at the messages waiting on the queue at that
 * moment, in delivery order (priority, then FIFO), filtered by the selector, without consuming or locking any.
 *
 * <p>On the wire an enumeration is a consumer with flag 8 browser ({@code docs/protocol.md}, "Browsing"): the
 * server sends up to {@code prefetch} messages ahead, the enumeration returns credit in batches of half the
 * window as the application reads, and when its buffer is empty it sends PULL: a PULL_DONE with nothing before it
 * means the browse is over. So a deep queue is browsed page by page, never all at once.
 *
 * <p>An enumeration is used by one thread at a time (like the session). Its buffer is guarded by its own lock,
 * shared with the IO thread that fills it.
 *
 * <p>A reconnection ends the enumerations open at the time: the server's place in the queue went with the link, and
 * starting again from the head would show messages twice. Their next {@code hasMoreElements} throws saying so; the
 * browser itself works on, and a new enumeration browses the queue as it is then.
 */
public final class WharfQueueBrowser implements QueueBrowser {

    private static final System.Logger LOG = System.getLogger(WharfQueueBrowser.class.getName());

    private final WharfSession session;
    private final Queue queue;
    private final WireDestination wire;
    private final String selector;
    private final CopyOnWriteArrayList<Cursor> open = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    WharfQueueBrowser(WharfSession session, Queue queue, WireDestination wire, String selector) {
        this.session = session;
        this.queue = queue;
        this.wire = wire;
        this.selector = selector;
    }

    /**
     * Asks the server whether the queue and selector are valid, by opening and at once closing a browse without
     * credit, so that createBrowser fails as JMS requires (InvalidDestinationException, InvalidSelectorException).
     */
    void validate() throws JMSException {
        WharfConnection connection = session.connection();
        int id = connection.nextConsumerId();
        // nothing to keep: asked again after a reconnection
        connection.requestOkRetrying(rid -> new Frame.CreateConsumer(rid, session.id(), id, wire, selector, 0,
                Frame.CONSUMER_BROWSER, null), "CREATE_CONSUMER (browser)");
        ConnectedLink on = connection.usableOrNull();
        if (on != null) {
            on.write(new Frame.CloseConsumer(0, session.id(), id, 0));
        }
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
        while (true) {
            ConnectedLink on = connection.usableLink();
            Cursor cursor = new Cursor(connection.nextConsumerId(), on);
            open.add(cursor);
            connection.registerBrowser(cursor);
            try {
                Frame.Error error = connection.request(on, rid -> new Frame.CreateConsumer(rid, session.id(), cursor.id,
                        wire, selector, session.prefetch(), Frame.CONSUMER_BROWSER, null), "CREATE_CONSUMER (browser)");
                if (error != null) {
                    throw JmsErrors.toException(error);
                }
                return cursor;
            } catch (ReconnectingException lost) {
                cursor.finish(); // its link is gone: a fresh browse on the new one
            } catch (JMSException e) {
                cursor.finish();
                throw e;
            }
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

    /** One enumeration: the server-side browse with the same id, and the messages it has sent ahead. */
    final class Cursor implements Enumeration<Message>, DeliveryTarget {
        final int id;
        /** The link the browse lives on; the server's place in the queue goes with it. */
        private final ConnectedLink on;
        /** Set when a reconnection replaced {@link #on}: the browse cannot go on. */
        private volatile boolean interrupted;
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition arrived = lock.newCondition();
        private final ArrayDeque<Frame.Deliver> buffer = new ArrayDeque<>();
        /** The last PULL sent and the last PULL_DONE seen. */
        private long lastPull;
        private long lastPullDone;
        private boolean finished;
        /** The next message to return, decoded; kept by hasMoreElements for nextElement. */
        private WharfMessage next;
        private int unreturnedCredit;

        Cursor(int id, ConnectedLink on) {
            this.id = id;
            this.on = on;
        }

        /** A DELIVER for this browse (IO thread). */
        @Override
        public void deliver(Frame.Deliver deliver) {
            lock.lock();
            try {
                if (finished) {
                    deliver.message().release();
                    return;
                }
                buffer.addLast(deliver);
                arrived.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /** PULL_DONE for this browse (IO thread). */
        @Override
        public void pullDone(long pullId) {
            lock.lock();
            try {
                lastPullDone = Math.max(lastPullDone, pullId);
                arrived.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /** A reconnection replaced the link this browse lived on: its next hasMoreElements throws. */
        @Override
        public void linkReplaced() {
            interrupted = true;
            wake();
        }

        /** The link was lost, or the connection: wakes a waiting hasMoreElements to look again. */
        @Override
        public void wake() {
            lock.lock();
            try {
                arrived.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /**
         * Whether another message follows. Expired messages are skipped. Throws JMSRuntimeException (an Enumeration
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
            while (next == null) {
                Frame.Deliver d = take();
                if (d == null) {
                    finish();
                    return false;
                }
                next = decode(d);
                returnCredit();
            }
            return true;
        }

        /** The next buffered DELIVER, pulling one when the buffer is empty; null once the server has no more. */
        private Frame.Deliver take() throws JMSException {
            WharfConnection connection = session.connection();
            checkNotInterrupted();
            long pullId;
            lock.lock();
            try {
                if (finished) {
                    return null;
                }
                Frame.Deliver d = buffer.pollFirst();
                if (d != null) {
                    return d;
                }
                pullId = ++lastPull;
            } finally {
                lock.unlock();
            }
            connection.checkOpen();
            checkNotInterrupted();
            on.write(new Frame.Pull(id, pullId));
            long remaining = TimeUnit.MILLISECONDS.toNanos(connection.url().requestTimeoutMillis());
            lock.lock();
            try {
                while (true) {
                    if (finished) {
                        return null;
                    }
                    JMSException lost = connection.lostCause();
                    if (lost != null) {
                        throw connection.lostException(lost);
                    }
                    checkNotInterrupted();
                    Frame.Deliver d = buffer.pollFirst();
                    if (d != null) {
                        return d;
                    }
                    if (lastPullDone >= pullId) {
                        return null;
                    }
                    if (remaining <= 0) {
                        throw new JMSException("No PULL_DONE from Wharf at " + on.address()
                                + " while browsing " + queue + " within " + connection.url().requestTimeoutMillis()
                                + " ms (requestTimeout)");
                    }
                    remaining = arrived.awaitNanos(remaining);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new JMSException("Interrupted while browsing " + queue);
            } finally {
                lock.unlock();
            }
        }

        /**
         * Decodes a browsed message; null when it has expired since the server showed it, or when it cannot be
         * decoded. Such a message is skipped with a warning, not thrown at the application (an Enumeration could
         * only throw a runtime exception, ending the browse): it stays on the queue, and a consumer's delivery of
         * it moves it to the dead-letter queue with the reason.
         */
        private WharfMessage decode(Frame.Deliver d) {
            try {
                long expiration = MessageCodec.expirationOf(d.message());
                if (expiration != 0 && expiration <= System.currentTimeMillis()) {
                    return null;
                }
                WharfMessage m = MessageCodec.decode(d.message(), d.deliveryCount());
                if (m instanceof WharfObjectMessage object) {
                    object.setDeserializationPolicy(session.connection().url().deserialization());
                }
                return m;
            } catch (MalformedFrameException | IndexOutOfBoundsException e) {
                LOG.log(System.Logger.Level.WARNING, "Browsing " + queue + ": a message cannot be decoded ("
                        + e.getMessage() + "); skipped. It stays on the queue; a consumer's delivery of it moves it"
                        + " to the dead-letter queue.");
                return null;
            } finally {
                d.message().release();
            }
        }

        private void checkNotInterrupted() throws JMSException {
            if (interrupted) {
                throw new JMSException("The browse of " + queue + " was cut short: the connection to Wharf was lost and"
                        + " made again, and the server's place in the queue went with the old connection. Start a new"
                        + " enumeration (QueueBrowser.getEnumeration) to browse the queue as it is now.");
            }
        }

        /** Every message read from the buffer frees a place in the window; returned in batches. */
        private void returnCredit() {
            if (++unreturnedCredit >= session.batchSize()) {
                on.write(new Frame.Credit(id, unreturnedCredit));
                unreturnedCredit = 0;
            }
        }

        /** Ends the enumeration: releases what is buffered and tells the server (no answer awaited). */
        void finish() {
            lock.lock();
            try {
                if (finished) {
                    return;
                }
                finished = true;
                for (Frame.Deliver d; (d = buffer.pollFirst()) != null; ) {
                    d.message().release();
                }
                arrived.signalAll();
            } finally {
                lock.unlock();
            }
            next = null;
            open.remove(this);
            session.connection().unregisterBrowser(this);
            on.write(new Frame.CloseConsumer(0, session.id(), id, 0)); // dropped if its link is gone
        }
    }

    @Override
    public String toString() {
        return "WharfQueueBrowser[" + queue + (selector != null ? ", selector=" + selector : "") + "]";
    }
}
