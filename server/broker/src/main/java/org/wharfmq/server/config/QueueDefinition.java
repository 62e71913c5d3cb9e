package org.wharfmq.server.config;

/**
 * A queue's settings: one defined in the configuration (so that it exists from startup, and is the only kind there
 * is when {@code autoCreate} is off), or defined or altered at run time (kept in the data directory). Every component
 * but the name may be null: the default, said below. config/wharf.yaml explains each key.
 *
 * @param name             the queue name, e.g. {@code REQUEST}
 * @param maxDepth         the queue's own depth limit, or null for the server-wide {@code maxQueueDepth}
 * @param maxBytes         the queue's own memory budget in bytes (docs/resilience.md), or null for none (only the
 *                         server's {@code maxMemoryBytes} bounds it)
 * @param policy           what a send meets when a budget is spent: {@code page}, {@code block} or {@code fail} (null:
 *                         the server-wide {@code memoryPolicy})
 * @param maxPageBytes     with the policy page, the queue's own disk budget in bytes, or null for none (only the
 *                         server's {@code maxPageBytes} bounds it)
 * @param pageFullPolicy   with the policy page, what a send meets when a disk budget is spent too: {@code block} or
 *                         {@code fail} (null: the server-wide {@code pageFullPolicy})
 * @param backoutThreshold how many times a message may be backed out (a rollback, a recover, a listener that threw,
 *                         a consumer closed with it unacknowledged) before it is moved to {@code backoutQueue} instead
 *                         of being delivered again (IBM MQ's BOTHRESH): its consumers see it at most this many times.
 *                         Null: never moved
 * @param backoutQueue     where such a message goes (IBM MQ's BOQNAME); null: the dead-letter queue
 * @param depthHighEvent   a depth-high event is published when the depth reaches this percentage of maxDepth (IBM
 *                         MQ's QDEPTHHI), 1-100; null: no depth events
 * @param depthLowEvent    after a depth-high event, a depth-low event is published when the depth falls to this
 *                         percentage (IBM MQ's QDEPTHLO), 0 to below depthHighEvent; null: none (the high event is
 *                         armed again once the depth is below its threshold)
 * @param fullEvent        whether a queue-full event is published when a put first finds the queue at its maxDepth
 *                         (IBM MQ's QDPMAXEV); null: false
 * @param usage            {@value #TRANSMISSION}: a transmission queue, holding messages for another queue manager until a
 *                         channel moves them (IBM MQ's USAGE(XMITQ); docs/distributed.md); null: an ordinary queue
 */
public record QueueDefinition(String name, Long maxDepth, Long maxBytes, String policy, Long maxPageBytes,
                              String pageFullPolicy, Integer backoutThreshold, String backoutQueue,
                              Integer depthHighEvent, Integer depthLowEvent, Boolean fullEvent, String usage) {

    /** The usage of a transmission queue. */
    public static final String TRANSMISSION = "transmission";
    /** The usage of an ordinary queue, as an administrator writes it to undo {@value #TRANSMISSION}. */
    public static final String NORMAL = "normal";

    /**
     * Reads an entry of {@code queues:}, whose keys ({@link QueueConfiguration}) are the components' names; its
     * values are checked by the server's settings ({@link #check()}).
     */
    static QueueDefinition read(Settings entry) {
        QueueDefinition queue = new QueueDefinition(QueueConfiguration.NAME.read(entry),
                QueueConfiguration.MAX_DEPTH.read(entry), QueueConfiguration.MAX_BYTES.read(entry),
                QueueConfiguration.POLICY.read(entry), QueueConfiguration.MAX_PAGE_BYTES.read(entry),
                QueueConfiguration.PAGE_FULL_POLICY.read(entry), QueueConfiguration.BACKOUT_THRESHOLD.read(entry),
                QueueConfiguration.BACKOUT_QUEUE.read(entry), QueueConfiguration.DEPTH_HIGH_EVENT.read(entry),
                QueueConfiguration.DEPTH_LOW_EVENT.read(entry), QueueConfiguration.FULL_EVENT.read(entry),
                QueueConfiguration.USAGE.read(entry));
        entry.refuseUnknown();
        return queue;
    }

    /** A queue with these settings and the usage of an ordinary queue. */
    public QueueDefinition(String name, Long maxDepth, Long maxBytes, String policy, Long maxPageBytes,
                           String pageFullPolicy, Integer backoutThreshold, String backoutQueue,
                           Integer depthHighEvent, Integer depthLowEvent, Boolean fullEvent) {
        this(name, maxDepth, maxBytes, policy, maxPageBytes, pageFullPolicy, backoutThreshold, backoutQueue,
                depthHighEvent, depthLowEvent, fullEvent, null);
    }

    /** A transmission queue with every other setting at its default. */
    public static QueueDefinition transmissionQueue(String name) {
        return new QueueDefinition(name, null, null, null, null, null, null, null, null, null, null, TRANSMISSION);
    }

    /** Whether this is a transmission queue ({@link #usage} {@value #TRANSMISSION}). */
    public boolean transmission() {
        return TRANSMISSION.equals(usage);
    }

    /** A queue with a depth limit of its own (or null) and every other setting at its default. */
    public QueueDefinition(String name, Long maxDepth) {
        this(name, maxDepth, null, null);
    }

    /** A queue with its own depth limit and memory settings (each may be null) and every other setting at its default. */
    public QueueDefinition(String name, Long maxDepth, Long maxBytes, String policy) {
        this(name, maxDepth, maxBytes, policy, null, null);
    }

    /** A queue with its own depth limit, memory and disk settings (each may be null) and no backout or events. */
    public QueueDefinition(String name, Long maxDepth, Long maxBytes, String policy, Long maxPageBytes,
                           String pageFullPolicy) {
        this(name, maxDepth, maxBytes, policy, maxPageBytes, pageFullPolicy, null, null, null, null, null);
    }

    /** Whether a queue-full event is published ({@link #fullEvent} true). */
    public boolean publishesFullEvents() {
        return Boolean.TRUE.equals(fullEvent);
    }

    /** Its settings that are not at their default, for people: "maxDepth 50, backoutThreshold 3" (or "the defaults"). */
    public String describeSettings() {
        StringBuilder text = new StringBuilder();
        Object[] values = {maxDepth, maxBytes, policy, maxPageBytes, pageFullPolicy, backoutThreshold, backoutQueue,
                depthHighEvent, depthLowEvent, fullEvent, usage};
        String[] keys = {"maxDepth", "maxBytes", "policy", "maxPageBytes", "pageFullPolicy", "backoutThreshold",
                "backoutQueue", "depthHighEvent", "depthLowEvent", "fullEvent", "usage"};
        for (int i = 0; i < keys.length; i++) {
            if (values[i] != null) {
                text.append(text.length() == 0 ? "" : ", ").append(keys[i]).append(' ').append(values[i]);
            }
        }
        return text.length() == 0 ? "the defaults" : text.toString();
    }

    /**
     * This definition with an administrator's changes ({@code wharf admin alter queue}): each non-null setting of
     * {@code changes} replaces this one's, where the value that means "the default" (maxDepth, maxBytes, maxPageBytes,
     * backoutThreshold, depthHighEvent or depthLowEvent 0; policy or pageFullPolicy {@code default}; backoutQueue
     * empty; fullEvent false; usage {@value #NORMAL}) makes it null again. The name is this one's.
     */
    public QueueDefinition alteredBy(QueueDefinition changes) {
        return new QueueDefinition(name,
                pick(changes.maxDepth, maxDepth, 0L),
                pick(changes.maxBytes, maxBytes, 0L),
                pick(changes.policy, policy, "default"),
                pick(changes.maxPageBytes, maxPageBytes, 0L),
                pick(changes.pageFullPolicy, pageFullPolicy, "default"),
                pick(changes.backoutThreshold, backoutThreshold, 0),
                pick(changes.backoutQueue, backoutQueue, ""),
                pick(changes.depthHighEvent, depthHighEvent, 0),
                pick(changes.depthLowEvent, depthLowEvent, 0),
                pick(changes.fullEvent, fullEvent, Boolean.FALSE),
                pick(changes.usage, usage, NORMAL));
    }

    private static <T> T pick(T change, T current, T meansDefault) {
        if (change == null) {
            return current;
        }
        return change.equals(meansDefault) ? null : change;
    }

    /**
     * Checks every setting (the name is the caller's to check).
     *
     * @throws ConfigurationException naming the queue, the setting, its value and what it must be
     */
    public void check() {
        if (maxDepth != null && maxDepth < 1) {
            throw bad("maxDepth", maxDepth, "at least 1");
        }
        if (maxBytes != null && maxBytes < 1) {
            throw bad("maxBytes", maxBytes, "at least 1");
        }
        if (policy != null && MemoryPolicy.parse(policy, "policy of queue '" + name + "'") == MemoryPolicy.DROP) {
            throw new ConfigurationException("Setting policy of queue '" + name + "' must be page, block or fail, "
                    + "was " + policy + " (a queue never drops messages; drop is for topics).");
        }
        if (maxPageBytes != null && maxPageBytes < 1) {
            throw bad("maxPageBytes", maxPageBytes, "at least 1");
        }
        if (pageFullPolicy != null) {
            MemoryPolicy full = MemoryPolicy.parse(pageFullPolicy, "pageFullPolicy of queue '" + name + "'");
            if (full != MemoryPolicy.BLOCK && full != MemoryPolicy.FAIL) {
                throw bad("pageFullPolicy", pageFullPolicy, "block or fail");
            }
        }
        if (backoutThreshold != null && backoutThreshold < 1) {
            throw bad("backoutThreshold", backoutThreshold, "at least 1 (leave it out for no backout)");
        }
        if (backoutQueue != null && (backoutQueue.isEmpty() || backoutQueue.equals(name))) {
            throw bad("backoutQueue", "'" + backoutQueue + "'", "another queue's name");
        }
        if (depthHighEvent != null && (depthHighEvent < 1 || depthHighEvent > 100)) {
            throw bad("depthHighEvent", depthHighEvent, "a percentage of maxDepth from 1 to 100");
        }
        if (usage != null && !usage.equals(TRANSMISSION)) {
            throw bad("usage", usage, TRANSMISSION + " or left out (an ordinary queue)");
        }
        if (depthLowEvent != null && (depthHighEvent == null || depthLowEvent < 0 || depthLowEvent >= depthHighEvent)) {
            throw bad("depthLowEvent", depthLowEvent, depthHighEvent == null
                    ? "set together with depthHighEvent (a depth-low event follows a depth-high one)"
                    : "a percentage of maxDepth from 0 to below depthHighEvent (" + depthHighEvent + ")");
        }
    }

    private ConfigurationException bad(String setting, Object value, String must) {
        return new ConfigurationException("Setting " + setting + " of queue '" + name + "' must be " + must + ", was "
                + value + ".");
    }
}
