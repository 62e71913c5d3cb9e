package org.wharfmq.server.session;

import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.queue.DeliveryWindow;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.QueueConsumer;
import org.wharfmq.server.queue.QueuedMessage;

import java.util.ArrayDeque;

/**
 * A client's MessageConsumer as the server sees it: a queue, a selector, a credit window, and the deliveries made to
 * it that are not acknowledged yet (in delivery-id order).
 *
 * <p>Its credit is guarded by its queue's lock (the queue spends it); its deliveries by its session's lock; whether
 * it is open is known on its connection's event loop. After CLOSE_CONSUMER it may live on in its session, holding
 * the deliveries the application consumed, until they are acknowledged, committed or rolled back.
 */
public final class ServerConsumer implements QueueConsumer {

    private final int id;
    private final ServerSession session;
    private final LocalQueue queue;
    private final Selector selector;
    private final DeliveryWindow window;
    final ArrayDeque<Delivery> unacknowledged = new ArrayDeque<>();
    boolean open = true;
    /** Runs once the consumer has closed and given back its messages (a subscription counts its consumers). */
    private Runnable onClose;

    ServerConsumer(int id, ServerSession session, LocalQueue queue, Selector selector, int credit) {
        this.id = id;
        this.session = session;
        this.queue = queue;
        this.selector = selector;
        this.window = new DeliveryWindow(credit);
    }

    /** The id the client chose, unique within the connection. */
    public int id() {
        return id;
    }

    /** The session the consumer belongs to. */
    public ServerSession session() {
        return session;
    }

    /** Makes {@code action} run once this consumer has closed and given back its unconsumed messages. */
    public void onClose(Runnable action) {
        this.onClose = action;
    }

    /** Runs the close action, once. */
    void closed() {
        Runnable action = onClose;
        onClose = null;
        if (action != null) {
            action.run();
        }
    }

    /** The queue it consumes from. */
    public LocalQueue queue() {
        return queue;
    }

    @Override
    public Selector selector() {
        return selector;
    }

    @Override
    public DeliveryWindow window() {
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
    public String toString() {
        return "consumer " + id + " of session " + session.id() + " on " + queue.name();
    }
}
