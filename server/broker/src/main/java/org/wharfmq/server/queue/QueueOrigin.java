package org.wharfmq.server.queue;

/** Where a queue comes from, as the management view shows it ({@link QueueManager#origin}). */
public enum QueueOrigin {
    /** Defined in the configuration file ({@code queues:}). */
    CONFIGURATION("defined in the configuration"),
    /** Defined in the configuration, then altered at run time: the run-time definition wins at the next start. */
    ALTERED("defined in the configuration, altered at run time"),
    /** Defined (or altered from created by use) by an administrator at run time; kept in the data directory. */
    DEFINED("defined at run time"),
    /** Created by its first use (autoCreate); deleted once unused for autoDeleteDelayMillis. */
    CREATED_BY_USE("created by use"),
    /** A JMS temporary queue: lives as long as its connection. */
    TEMPORARY("a temporary queue"),
    /** One of the queue manager's own (the dead-letter queue, the admin command queues). */
    SYSTEM("the queue manager's own");

    private final String description;

    QueueOrigin(String description) {
        this.description = description;
    }

    /** In words, for messages: "created by use". */
    public String description() {
        return description;
    }
}
