package org.wharfmq.server.config;

/**
 * The keys of an entry of {@code queues:} in config/wharf.yaml, each one {@link Setting}: those of a queue
 * ({@link QueueDefinition}) and those of a name that leads to one ({@link QueueReference}, with a {@code type}). None
 * has a default of its own: a queue that leaves a key out takes the queue manager's setting of the same kind
 * ({@code maxQueueDepth}, {@code memoryPolicy}...), or has none. The rules are the records' {@code check}, as for a
 * queue defined at run time.
 */
public final class QueueConfiguration {

    /** {@code name}: the queue's; required, no '/'. */
    public static final Setting<String> NAME = Setting.text("name", null);
    /** {@code maxDepth}: its own depth limit, at least 1 (none: {@code maxQueueDepth}). */
    public static final Setting<Long> MAX_DEPTH = Setting.optionalWhole("maxDepth");
    /** {@code maxBytes}: its own memory budget in bytes, at least 1 (none: only {@code maxMemoryBytes} bounds it). */
    public static final Setting<Long> MAX_BYTES = Setting.optionalWhole("maxBytes");
    /** {@code policy}: page, block or fail when a budget is spent (none: {@code memoryPolicy}). */
    public static final Setting<String> POLICY = Setting.text("policy", null);
    /** {@code maxPageBytes}: with page, its own disk budget in bytes (none: only {@code maxPageBytes} bounds it). */
    public static final Setting<Long> MAX_PAGE_BYTES = Setting.optionalWhole("maxPageBytes");
    /** {@code pageFullPolicy}: with page, block or fail when a disk budget is spent too (none: the server's). */
    public static final Setting<String> PAGE_FULL_POLICY = Setting.text("pageFullPolicy", null);
    /** {@code backoutThreshold}: backouts before a message moves to the backout queue (none: never moved). */
    public static final Setting<Integer> BACKOUT_THRESHOLD = Setting.optionalInteger("backoutThreshold");
    /** {@code backoutQueue}: where such a message goes (none: the dead-letter queue). */
    public static final Setting<String> BACKOUT_QUEUE = Setting.text("backoutQueue", null);
    /** {@code depthHighEvent}: a percentage of maxDepth, 1-100, that raises a depth-high event (none: no events). */
    public static final Setting<Integer> DEPTH_HIGH_EVENT = Setting.optionalInteger("depthHighEvent");
    /** {@code depthLowEvent}: a percentage below depthHighEvent that raises a depth-low event after one (none). */
    public static final Setting<Integer> DEPTH_LOW_EVENT = Setting.optionalInteger("depthLowEvent");
    /** {@code fullEvent}: whether a put refused by a full queue raises a queue-full event (none: false). */
    public static final Setting<Boolean> FULL_EVENT = Setting.optionalFlag("fullEvent");
    /** {@code usage}: {@code transmission} for a transmission queue (none: an ordinary queue). */
    public static final Setting<String> USAGE = Setting.text("usage", null);
    /** {@code type}: {@code alias} or {@code remote} for a name that leads to a queue (none: a queue). */
    public static final Setting<String> TYPE = Setting.text("type", null);
    /** {@code target}: an alias's queue. */
    public static final Setting<String> TARGET = Setting.text("target", null);
    /** {@code remoteQueue}: a remote definition's queue on the other queue manager (none: a queue-manager alias). */
    public static final Setting<String> REMOTE_QUEUE = Setting.text("remoteQueue", null);
    /** {@code remoteQueueManager}: the other queue manager of a remote definition or queue-manager alias. */
    public static final Setting<String> REMOTE_QUEUE_MANAGER = Setting.text("remoteQueueManager", null);
    /** {@code transmissionQueue}: the transmission queue a remote definition uses (none: the one named after it). */
    public static final Setting<String> TRANSMISSION_QUEUE = Setting.text("transmissionQueue", null);

    private QueueConfiguration() {
    }
}
