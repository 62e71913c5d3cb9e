package org.wharfmq.server.queue;

import org.wharfmq.protocol.selector.Selector;

/**
 * Where a QueueBrowser has got to in a {@link LocalQueue}: the priority it is walking and the last message it
 * showed there, then, once every priority is walked, where it has got to among the paged messages (in the order
 * paged, read from the page files on the paging thread: {@link LocalQueue#browsePaged}). It shows only messages that were on the queue when the browse began (sequence below
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

    /** Whether the queue's paged messages have all been shown (or there were none when the browse began). */
    boolean pagedFinished;
    /** Where the browse has got to among the paged messages; on the paging thread only, once it has begun. */
    PageStore.Position paged;

    BrowseCursor(Selector selector, long endSequence, boolean anyPaged) {
        this.selector = selector;
        this.endSequence = endSequence;
        this.pagedFinished = !anyPaged;
    }

    /** Whether every priority has been walked in memory: what is left to show, if anything, is paged. */
    public boolean inMemoryFinished() {
        return priority < 0;
    }

    /** Whether every priority has been walked and every paged message read: nothing more will be shown. */
    public boolean finished() {
        return priority < 0 && pagedFinished;
    }
}
