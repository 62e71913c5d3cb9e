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
     * Reads an entry of {@code queues:}, whose keys ({@link QueueConfiguration}) are the components' names, and checks
     * each against its rules (naming the file and its line) and the rules between them.
     *
     * @throws ConfigurationException for an unknown key, or a value of the wrong type or refused
     */
    static QueueDefinition read(Settings entry) {
        SettingValues values = SettingValues.ofEntry(entry, QueueConfiguration.class);
        entry.refuseUnknown();
        QueueDefinition queue = new QueueDefinition(values.get(QueueConfiguration.NAME),
                values.get(QueueConfiguration.MAX_DEPTH), values.get(QueueConfiguration.MAX_BYTES),
                values.get(QueueConfiguration.POLICY), values.get(QueueConfiguration.MAX_PAGE_BYTES),
                values.get(QueueConfiguration.PAGE_FULL_POLICY), values.get(QueueConfiguration.BACKOUT_THRESHOLD),
                values.get(QueueConfiguration.BACKOUT_QUEUE), values.get(QueueConfiguration.DEPTH_HIGH_EVENT),
                values.get(QueueConfiguration.DEPTH_LOW_EVENT), values.get(QueueConfiguration.FULL_EVENT),
                values.get(QueueConfiguration.USAGE));
        values.named(queue.owner(entry)).check();
        queue.checkBetween();
        return queue;
    }

    /** This queue as errors name it: {@code queue 'ORDERS'} (the entry's path when it has no name). */
    private String owner(Settings entry) {
        return name == null || name.isBlank() ? entry.path() : "queue '" + name + "'";
    }

    /** Its settings as the {@link Setting}s of {@link QueueConfiguration} (checked, described). */
    private SettingValues values() {
        return SettingValues.defaults("", QueueConfiguration.class).named("queue '" + name + "'")
                .with(QueueConfiguration.NAME, name).with(QueueConfiguration.MAX_DEPTH, maxDepth)
                .with(QueueConfiguration.MAX_BYTES, maxBytes).with(QueueConfiguration.POLICY, policy)
                .with(QueueConfiguration.MAX_PAGE_BYTES, maxPageBytes)
                .with(QueueConfiguration.PAGE_FULL_POLICY, pageFullPolicy)
                .with(QueueConfiguration.BACKOUT_THRESHOLD, backoutThreshold)
                .with(QueueConfiguration.BACKOUT_QUEUE, backoutQueue)
                .with(QueueConfiguration.DEPTH_HIGH_EVENT, depthHighEvent)
                .with(QueueConfiguration.DEPTH_LOW_EVENT, depthLowEvent)
                .with(QueueConfiguration.FULL_EVENT, fullEvent).with(QueueConfiguration.USAGE, usage);
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
        values().shown().forEach((key, value) -> {
            if (value != null && !key.equals(QueueConfiguration.NAME.key())) {
                text.append(text.length() == 0 ? "" : ", ").append(key).append(' ').append(value);
            }
        });
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
     * Checks every setting against its rules ({@link QueueConfiguration}) and the rules between them (the name is the
     * caller's to check).
     *
     * @throws ConfigurationException naming the queue, the setting, its value and what it must be
     */
    public void check() {
        values().check();
        checkBetween();
    }

    /** The rules between its settings: a backout queue of another name, a depth-low event below a depth-high one. */
    private void checkBetween() {
        if (backoutQueue != null && backoutQueue.equals(name)) {
            throw bad("backoutQueue", "'" + backoutQueue + "'", "another queue's name");
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
