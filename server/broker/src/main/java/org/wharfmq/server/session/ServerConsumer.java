package org.wharfmq.server.session;

import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.queue.DeliveryWindow;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.QueueConsumer;
import org.wharfmq.server.queue.QueuedMessage;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;

/**
 * A client's MessageConsumer as the server sees it: a queue, a selector, a credit window, and the deliveries made to
 * it that are not acknowledged yet (in delivery-id order). Created, found and closed only by its
 * {@link BrokerSession}, the one owner of its consumers.
 *
 * <p>Its credit is guarded by its queue's lock (the queue spends it); its deliveries by its session's lock (every
 * method that touches them says so); whether it is open is known on its connection's event loop. After
 * CLOSE_CONSUMER it may live on in its session, holding the deliveries the application consumed, until they are
 * acknowledged, committed or rolled back.
 */
public final class ServerConsumer implements QueueConsumer {

    private final int id;
    private final BrokerSession session;
    private final LocalQueue queue;
    private final Selector selector;
    private final DeliveryWindow window;
    /** Guarded by the session's lock. */
    private final ArrayDeque<Delivery> unacknowledged = new ArrayDeque<>();
    /** Event loop only. */
    private boolean open = true;
    /** Runs once the consumer has closed and given back its messages (a subscription counts its consumers). */
    private Runnable onClose;

    /**
     * @param create its CREATE_CONSUMER: the id, the credit, whether the client's connection is stopped, and its
     *               window in bytes (already capped by the server's maxConsumerWindowBytes), if any
     */
    ServerConsumer(Frame.CreateConsumer create, BrokerSession session, LocalQueue queue, Selector selector) {
        this.id = create.consumerId();
        this.session = session;
        this.queue = queue;
        this.selector = selector;
        boolean stopped = (create.flags() & Frame.CONSUMER_STOPPED) != 0;
        this.window = create.windowBytes() > 0
                ? DeliveryWindow.ofClient(create.credit(), stopped, create.windowBytes())
                : new DeliveryWindow(create.credit(), stopped, session.consumersMaxHeldBytes());
    }

    /** The id the client chose, unique within the connection. */
    public int id() {
        return id;
    }

    /** The queue it consumes from. */
    public LocalQueue queue() {
        return queue;
    }

    @Override
    public Selector selector() {
        return selector;
    }

    /** Its credit: spent and given by its queue, under the queue's lock. */
    @Override
    public DeliveryWindow window() {
        assert queue.lockHeldByCurrentThread() : "the credit of " + this + " is its queue's, under its lock";
        return window;
    }

    @Override
    public void deliver(QueuedMessage message) {
        session.record(this, message);
    }

    @Override
    public void flushDeliveries() {
        session.flushDeliveries();
    }

    @Override
    public void queueDeleted(String reason) {
        session.queueDeleted(this, reason);
    }

    // ---- on the event loop ----

    /** Makes {@code action} run once this consumer has closed and given back its unconsumed messages. */
    void onClose(Runnable action) {
        this.onClose = action;
    }

    /** Registers with the queue, which sends what the credit allows. */
    void start() {
        queue.addConsumer(this);
    }

    /**
     * CREDIT: {@code credit} more messages may be pushed, and {@code settledBytes} of those handed over are settled (a
     * consumer whose window is bounded in bytes: inside the queue manager, or a client's that asked for one), unless it
     * has stopped.
     */
    void addCredit(int credit, long settledBytes) {
        if (open) {
            queue.addCredit(this, credit, settledBytes);
        }
    }

    /** PULL: one available message now, credit or not, unless it has stopped. */
    void pull() {
        if (open) {
            queue.pull(this);
        }
    }

    /** ROLLBACK in progress: no pushes until {@link #resume()} (its queue takes its credit away). */
    void suspend() {
        queue.suspend(this);
    }

    /** ROLLBACK answered: back to the initial credit, and what it allows is sent. */
    void resume() {
        queue.resume(this);
    }

    /**
     * Nothing more is delivered to it: unregisters from its queue and detaches from it.
     *
     * @return false when it had stopped already
     */
    boolean stop() {
        if (!open) {
            return false;
        }
        open = false;
        queue.removeConsumer(this);
        queue.detach();
        return true;
    }

    /** Runs the close action, once. */
    void closed() {
        Runnable action = onClose;
        onClose = null;
        if (action != null) {
            action.run();
        }
    }

    // ---- its deliveries: under the session's lock ----

    /** A delivery was made to it. */
    void delivered(Delivery d) {
        assert session.lock().isHeldByCurrentThread() : "the deliveries of " + this + " are its session's";
        unacknowledged.addLast(d);
    }

    /** Settles its deliveries after {@code lastDeliveryId} into {@code out}, which never reached the application. */
    void settleAfter(long lastDeliveryId, List<QueuedMessage> out) {
        assert session.lock().isHeldByCurrentThread() : "the deliveries of " + this + " are its session's";
        Delivery d;
        while ((d = unacknowledged.peekLast()) != null && d.deliveryId > lastDeliveryId) {
            unacknowledged.pollLast();
            d.settled = true;
            out.add(d.message);
        }
    }

    /** Settles its deliveries up to {@code lastDeliveryId} into {@code out}, counting a redelivery when asked. */
    void settleUpTo(long lastDeliveryId, boolean countRedelivery, List<QueuedMessage> out) {
        assert session.lock().isHeldByCurrentThread() : "the deliveries of " + this + " are its session's";
        Delivery d;
        while ((d = unacknowledged.peekFirst()) != null && d.deliveryId <= lastDeliveryId) {
            unacknowledged.pollFirst();
            d.settled = true;
            if (countRedelivery) {
                d.message.countRedelivery();
            }
            out.add(d.message);
        }
    }

    /** Settles all its deliveries into {@code out}, counting a redelivery on those up to {@code countUpTo}. */
    void settleAll(long countUpTo, List<QueuedMessage> out) {
        assert session.lock().isHeldByCurrentThread() : "the deliveries of " + this + " are its session's";
        Delivery d;
        while ((d = unacknowledged.pollFirst()) != null) {
            d.settled = true;
            if (d.deliveryId <= countUpTo) {
                d.message.countRedelivery();
            }
            out.add(d.message);
        }
    }

    /** Settles the one delivery {@code deliveryId}; null when it is not among its deliveries (settled already). */
    QueuedMessage settle(long deliveryId) {
        assert session.lock().isHeldByCurrentThread() : "the deliveries of " + this + " are its session's";
        for (Iterator<Delivery> it = unacknowledged.iterator(); it.hasNext(); ) {
            Delivery d = it.next();
            if (d.deliveryId >= deliveryId) {
                if (d.deliveryId == deliveryId) {
                    it.remove();
                    d.settled = true;
                    return d.message;
                }
                return null;
            }
        }
        return null;
    }

    /** Whether it holds deliveries not settled yet. */
    boolean holdsDeliveries() {
        assert session.lock().isHeldByCurrentThread() : "the deliveries of " + this + " are its session's";
        return !unacknowledged.isEmpty();
    }

    @Override
    public String toString() {
        return "consumer " + id + " of session " + session.id() + " on " + queue.name();
    }
}
