package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.message.MessageReader;
import org.wharfmq.protocol.message.WireDestination;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One browse of a queue, without JMS: a look at the messages waiting on it now, in delivery order, filtered by a
 * selector, without consuming or locking any. On the wire it is a consumer with the browser flag
 * ({@code docs/protocol.md}, "Browsing"): the server sends up to {@code prefetch} messages ahead, and on a link of
 * protocol version 3 no more than about {@code consumerWindowBytes} of them (its window in bytes, which the server
 * caps); credit goes back in batches of half the window, in messages or in bytes, whichever comes first, as the user
 * reads ({@link ClientConfiguration#creditBatch}, {@link ClientConfiguration#creditBatchBytes}), and when the buffer is
 * empty {@link #take} returns what credit it has not yet and sends PULL: a PULL_DONE with nothing before it means the
 * browse is over. So a deep queue, or one of large messages, is browsed page by page, never all at once.
 *
 * <p>{@link #next} hands the user each message made by its {@link CoreConsumer.Decoder}, as a consumer's receive does:
 * one that has expired since the server showed it is skipped, and so is one that cannot be decoded, with a WARNING
 * naming the queue and the reason (browsing takes nothing: it stays on its queue, and a consumer's delivery of it
 * moves it to the dead-letter queue).
 *
 * <p>Used by one thread at a time; its buffer is guarded by its own lock, shared with the reading thread that fills
 * it. A reconnection ends it: the server's place in the queue went with the link, and starting again from the head
 * would show messages twice, so the next {@link #take} throws saying so.
 */
public final class CoreBrowser implements DeliveryTarget {
    private static final System.Logger LOG = System.getLogger(CoreBrowser.class.getName());

    private final CoreConnection connection;
    private final int sessionId;
    private final int id;
    private final WireDestination queue;
    private final int creditBatch;
    /** Credit goes back once this many bytes of messages are read: half the window in bytes, or never by bytes. */
    private final long creditBatchBytes;
    /** The browse's window, and the most deliveries its buffer holds unread ({@link ClientConfiguration#maxBuffered}). */
    private final int prefetch;
    private final int maxBuffered;
    /** The link the browse lives on; the server's place in the queue goes with it. */
    private final ConnectedLink on;
    /** Set when a reconnection replaced {@link #on}: the browse cannot go on. */
    private volatile boolean interrupted;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final ArrayDeque<Frame.Deliver> buffer = new ArrayDeque<>();
    /** The last PULL sent and the last PULL_DONE seen; under {@link #lock}. */
    private long lastPull;
    private long lastPullDone;
    private boolean finished;
    /** Messages read since credit was last returned, and their bytes (encoded lengths); the browsing thread. */
    private int unreturnedCredit;
    private long unreturnedBytes;

    private CoreBrowser(CoreConnection connection, int sessionId, WireDestination queue, int prefetch,
                        int windowBytes, ConnectedLink on) {
        this.connection = connection;
        this.sessionId = sessionId;
        this.id = connection.nextConsumerId();
        this.queue = queue;
        this.prefetch = prefetch;
        this.creditBatch = ClientConfiguration.creditBatch(prefetch);
        this.creditBatchBytes = ClientConfiguration.creditBatchBytes(windowBytes);
        this.maxBuffered = ClientConfiguration.maxBuffered(prefetch);
        this.on = on;
    }

    /**
     * Starts a browse of {@code queue} in {@code session}, with the session's window in messages and
     * {@code windowBytes} in bytes, on the usable link (made again first if a reconnection is under way).
     *
     * @param selector    the selector, or null; a blank one is none
     * @param windowBytes the bytes of messages (their encoded lengths) the server may send ahead, besides the count
     *                    ({@code consumerWindowBytes}); 0: the count alone. Asked for only of a server of protocol
     *                    version 3 ({@link ConnectedLink#consumerWindowBytes}), which caps it
     * @throws ClientException the server's refusal (no such queue, no permission), or the connection's failure; and
     *                         before anything is sent, a selector the grammar refuses ({@code INVALID_SELECTOR}) or a
     *                         temporary queue this connection deleted ({@code UNKNOWN_DESTINATION})
     */
    public static CoreBrowser open(CoreSession session, WireDestination queue, String selector, int windowBytes)
            throws ClientException {
        CoreConnection connection = session.connection();
        int sessionId = session.id();
        int prefetch = session.prefetch();
        String sent = checked(connection, queue, selector);
        while (true) {
            ConnectedLink on = connection.usableLink();
            int asked = on.consumerWindowBytes() ? windowBytes : 0; // a version 2 server refuses trailing bytes
            CoreBrowser browser = new CoreBrowser(connection, sessionId, queue, prefetch, asked, on);
            connection.consumers().registerBrowser(browser.id, browser);
            try {
                Frame.Error error = connection.request(on, rid -> new Frame.CreateConsumer(rid, sessionId, browser.id,
                        queue, sent, prefetch, Frame.CONSUMER_BROWSER, null, asked), "CREATE_CONSUMER (browser)");
                if (error != null) {
                    throw ClientException.of(error);
                }
                return browser;
            } catch (LinkLostException lost) {
                browser.finish(); // its link is gone: a fresh browse on the new one
            } catch (ClientException e) {
                browser.finish();
                throw e;
            }
        }
    }

    /**
     * Asks the server whether {@code queue} and {@code selector} can be browsed in {@code session}, by opening and at
     * once closing a browse without credit: the server's refusal as a {@link ClientException}, and before anything is
     * sent the refusals {@link #open} makes itself.
     *
     * @return the selector as a browse sends it: null for none or a blank one
     */
    public static String validate(CoreSession session, WireDestination queue, String selector) throws ClientException {
        CoreConnection connection = session.connection();
        int sessionId = session.id();
        String sent = checked(connection, queue, selector);
        int id = connection.nextConsumerId();
        // nothing to keep: asked again after a reconnection
        connection.requestOkRetrying(rid -> new Frame.CreateConsumer(rid, sessionId, id, queue, sent, 0,
                Frame.CONSUMER_BROWSER, null), "CREATE_CONSUMER (browser)");
        ConnectedLink link = connection.usableOrNull();
        if (link != null) {
            link.write(new Frame.CloseConsumer(0, sessionId, id, 0));
        }
        return sent;
    }

    /** The selector as sent, once it and the queue passed the checks made before anything is sent. */
    private static String checked(CoreConnection connection, WireDestination queue, String selector)
            throws ClientException {
        connection.temporaries().checkNotDeleted(queue);
        return Selectors.checked(selector);
    }

    public int id() {
        return id;
    }

    // ---- the reading thread's side ----

    /** A DELIVER for this browse. */
    @Override
    public void deliver(Frame.Deliver deliver) {
        lock.lock();
        try {
            if (finished || buffer.size() >= maxBuffered) {
                deliver.message().release();
                if (finished) {
                    return;
                }
            } else {
                buffer.addLast(deliver);
                arrived.signalAll();
                return;
            }
        } finally {
            lock.unlock();
        }
        connection.deliveryPastWindow(on, "the browse " + id + " of " + queue, prefetch, maxBuffered);
    }

    /** PULL_DONE for this browse. */
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

    /** A reconnection replaced the link this browse lived on: its next {@link #take} throws. */
    @Override
    public void linkReplaced() {
        interrupted = true;
        wake();
    }

    /** The link was lost, or the connection: wakes a waiting {@link #take} to look again. */
    @Override
    public void wake() {
        lock.lock();
        try {
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    // ---- the browsing thread's side ----

    /**
     * The next message shown, made by {@code decoder}; null once the server has no more (the browse is then over).
     * Skips, and counts as read, one that has expired since the server showed it and one that cannot be decoded (with
     * a WARNING naming the queue and why). The delivery's buffer is released before this returns.
     *
     * @throws ClientException as {@link #take}
     */
    public <M> M next(CoreConsumer.Decoder<M> decoder) throws ClientException {
        while (true) {
            Frame.Deliver d = take();
            if (d == null) {
                return null;
            }
            int bytes = d.message().readableBytes(); // what the server counts against the window in bytes
            M message = decode(d, decoder);
            consumed(bytes);
            if (message != null) {
                return message;
            }
        }
    }

    /** The message of a delivery shown, or null when it has expired or cannot be decoded; releases its buffer. */
    private <M> M decode(Frame.Deliver d, CoreConsumer.Decoder<M> decoder) {
        try {
            long expiration = MessageReader.expirationOf(d.message());
            if (expiration != 0 && expiration <= System.currentTimeMillis()) {
                return null;
            }
            return decoder.decode(d);
        } catch (MalformedFrameException | IndexOutOfBoundsException e) {
            LOG.log(System.Logger.Level.WARNING, "Browsing " + queue + ": a message cannot be decoded (" + e.getMessage()
                    + "); skipped. It stays on the queue; a consumer's delivery of it moves it to the dead-letter queue.");
            return null;
        } finally {
            d.message().release();
        }
    }

    /**
     * The next delivery shown, pulling one when the buffer is empty (after returning the credit of what was read, so
     * that the server's window, which may be smaller than this browse's, is open again); null once the server has no
     * more (the browse is then over). The caller owns its buffer and calls {@link #consumed} once it has read it.
     *
     * @throws ClientException when the connection is lost, a reconnection cut the browse short, or the server does not
     *                         answer the PULL within requestTimeout
     */
    Frame.Deliver take() throws ClientException {
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
        returnCredit();
        on.write(new Frame.Pull(id, pullId));
        int timeout = connection.settings().requestTimeoutMillis();
        long remaining = TimeUnit.MILLISECONDS.toNanos(timeout);
        lock.lock();
        try {
            while (true) {
                if (finished) {
                    return null;
                }
                connection.checkNotLost();
                checkNotInterrupted();
                Frame.Deliver d = buffer.pollFirst();
                if (d != null) {
                    return d;
                }
                if (lastPullDone >= pullId) {
                    return null;
                }
                if (remaining <= 0) {
                    throw new ClientException("No PULL_DONE from Wharf at " + on.address() + " while browsing " + queue
                            + " within " + timeout + " ms (requestTimeout)", null);
                }
                remaining = arrived.awaitNanos(remaining);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException("Interrupted while browsing " + queue, e);
        } finally {
            lock.unlock();
        }
    }

    private void checkNotInterrupted() throws ClientException {
        if (interrupted) {
            throw new ClientException("The browse of " + queue + " was cut short: the connection to Wharf was lost and"
                    + " made again, and the server's place in the queue went with the old connection. Start a new"
                    + " browse to see the queue as it is now.", null);
        }
    }

    /**
     * A message taken, of {@code bytes} (its encoded length), was read: it frees its place in the window; credit goes
     * back in batches of half the window, in messages or in bytes. A browse's CREDIT carries no bytes: the server
     * settles the oldest messages it showed, as many as the credit, since a browse is read in order.
     */
    void consumed(int bytes) {
        unreturnedBytes += bytes;
        if (++unreturnedCredit >= creditBatch || unreturnedBytes >= creditBatchBytes) {
            returnCredit();
        }
    }

    /** Returns the credit of the messages read since it last went back, if any. */
    private void returnCredit() {
        if (unreturnedCredit > 0) {
            on.write(new Frame.Credit(id, unreturnedCredit));
            unreturnedCredit = 0;
            unreturnedBytes = 0;
        }
    }

    /**
     * Ends the browse: releases what is buffered and tells the server (no answer awaited).
     *
     * @return false if it had ended already
     */
    public boolean finish() {
        lock.lock();
        try {
            if (finished) {
                return false;
            }
            finished = true;
            for (Frame.Deliver d; (d = buffer.pollFirst()) != null; ) {
                d.message().release();
            }
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
        connection.consumers().unregisterBrowser(id, this);
        on.write(new Frame.CloseConsumer(0, sessionId, id, 0)); // dropped if its link is gone
        return true;
    }
}
