package org.wharfmq.server.queue;

import org.wharfmq.protocol.selector.Selector;

/**
 * Where a QueueBrowser has got to in a {@link LocalQueue}: the priority it is walking and the last message it
 * showed there. It shows only messages that were on the queue when the browse began (sequence below
 * {@link #endSequence}), in delivery order (priority 9 first, FIFO within a priority), and never takes, locks or
 * counts a delivery of any of them.
 *
 * <p>Guarded by the queue's lock (the queue moves it in {@link LocalQueue#browse}); owned by one browser.
 */
public final class BrowseCursor {

    final Selector selector;
    /** Messages numbered from here on arrived after the browse began and are not shown. */
    final long endSequence;
    int priority = LocalQueue.HIGHEST_PRIORITY;
    /** The last message shown (or passed) at {@link #priority}, to resume after it without a walk; may have left the list. */
    QueuedMessage last;
    /** Its sequence: where to resume by walking when {@link #last} is no longer on the list. */
    long lastSequence;

    BrowseCursor(Selector selector, long endSequence) {
        this.selector = selector;
        this.endSequence = endSequence;
    }

    /** Whether every priority has been walked: nothing more will be shown. */
    public boolean finished() {
        return priority < 0;
    }
}
