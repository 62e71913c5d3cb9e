package org.wharfmq.server.queue;

/**
 * Where a queue's {@link QueueEvent}s go: the server publishes them on its event topics and logs them. Called by the
 * queue once its lock is released, on the thread that changed the depth (an event loop, the journal's completion
 * thread, an administrator's), so an implementation only hands the event on.
 */
@FunctionalInterface
public interface QueueEvents {

    /** Events go nowhere (a queue manager without a topic manager: tests). */
    QueueEvents NONE = event -> {
    };

    /** One event happened. */
    void publish(QueueEvent event);
}
