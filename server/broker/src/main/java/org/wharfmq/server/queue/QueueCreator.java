package org.wharfmq.server.queue;

/**
 * Who has a queue created by use (a connection, for its user): asked before the queue is created, and again in the
 * creation's one step, where the new queue is counted against its quota. {@link QueueManager} gives the count back
 * when the queue is deleted (unused, by an administrator, or made a defined queue by {@code alter queue}).
 */
public interface QueueCreator {

    /** Whoever may use a queue may have it created by use, and nothing is counted. */
    QueueCreator ANYONE = new QueueCreator() {
        @Override
        public void checkCreate(String queue) {
        }

        @Override
        public Runnable created(String queue) {
            return null;
        }
    };

    /**
     * Before {@code queue} is created by this use: may refuse it by throwing (the create permission). Not asked for a
     * queue that exists.
     */
    void checkCreate(String queue);

    /**
     * {@code queue} is being created by this use, in the one step no other creation or deletion of that name can
     * come between: counts it, or refuses it by throwing (a quota).
     *
     * @return what gives the count back once the queue is deleted; null when nothing was counted
     */
    Runnable created(String queue);
}
