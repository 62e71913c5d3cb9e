package org.wharfmq.server.security;

/**
 * What one user may hold at once, or do in a minute, under the security file's {@code quotas:} (docs/security.md,
 * "Quotas"): each beside, never instead of, the server's own limit of the same thing, which holds for all users
 * together.
 */
public enum Quota {

    /** Queues the user's clients had created by use (autoCreate) that exist now; beside maxQueues. */
    CREATED_QUEUES("createdQueues", "queues created by use", 1_000),
    /** Temporary queues the user's connections hold now; beside maxTemporaryQueuesPerConnection and maxQueues. */
    TEMPORARY_QUEUES("temporaryQueues", "temporary queues", 1_000),
    /** Connections of the user open now; beside maxConnections and maxConnectionsPerAddress. */
    CONNECTIONS("connections", "connections", 500),
    /** Deliveries the user's clients may send to the dead-letter queue by REJECT in one minute. */
    REJECTS_PER_MINUTE("rejectsPerMinute", "deliveries rejected to the dead-letter queue per minute", 100);

    private final String key;
    private final String description;
    private final int defaultValue;

    Quota(String key, String description, int defaultValue) {
        this.key = key;
        this.description = description;
        this.defaultValue = defaultValue;
    }

    /** The quota as the security file writes it: {@code createdQueues}, ... */
    public String key() {
        return key;
    }

    /** What it counts, for refusals and the log: "queues created by use". */
    public String description() {
        return description;
    }

    /** Its value for every user the security file sets nothing for (an admin excepted: unlimited). */
    public int defaultValue() {
        return defaultValue;
    }
}
