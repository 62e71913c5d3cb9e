package org.wharfmq.server.queue;

import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.protocol.selector.SelectorParseException;

import java.util.ArrayList;
import java.util.List;

/** A consumer that keeps what the queue hands it. */
final class RecordingConsumer implements QueueConsumer {

    private final Selector selector;
    private final DeliveryWindow window;
    final List<QueuedMessage> received = new ArrayList<>();
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
