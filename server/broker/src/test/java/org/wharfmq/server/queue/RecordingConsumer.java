package org.wharfmq.server.queue;

import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.protocol.selector.SelectorParseException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A consumer that keeps what the queue hands it. The paging thread hands it messages read back while a test's thread
 * reads what it holds: {@link #received} may be read at any time (each read sees whole deliveries), but what it holds
 * is stable only once the paging thread is idle ({@link PagingQueues#settle}) or held.
 */
final class RecordingConsumer implements QueueConsumer {

    private final Selector selector;
    private final DeliveryWindow window;
    final List<QueuedMessage> received = new CopyOnWriteArrayList<>();
    int flushes;

    RecordingConsumer(String selector, int credit) {
        try {
            this.selector = Selector.parse(selector);
        } catch (SelectorParseException e) {
            throw new IllegalArgumentException(e);
        }
        this.window = new DeliveryWindow(credit, false);
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
        received.add(message);
    }

    @Override
    public void flushDeliveries() {
        flushes++;
    }

    List<String> bodies() {
        List<String> bodies = new ArrayList<>();
        for (QueuedMessage m : received) {
            bodies.add(LocalQueueTest.body(m));
        }
        return bodies;
    }
}
