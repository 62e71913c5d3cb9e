package org.wharfmq.server.config;

/**
 * The keys of an entry of {@code topics:} in config/wharf.yaml ({@link TopicDefinition}), each one {@link Setting}.
 * An entry that leaves a key out takes the queue manager's setting of the same kind. The filter is the queue
 * manager's settings' to check (given, and given once).
 */
public final class TopicConfiguration {

    /** {@code filter}: the topic filter whose subscriptions the entry covers; required. */
    public static final Setting<String> FILTER = Setting.text("filter", null);
    /** {@code maxBytes}: each covered subscription's memory budget in bytes (none: {@code maxSubscriptionBytes}). */
    public static final Setting<Long> MAX_BYTES = Setting.optionalWhole("maxBytes").atLeast(1);
    /** {@code policy}: block, fail, drop or page (none: {@code memoryPolicy}). */
    public static final Setting<String> POLICY = Setting.text("policy", null).whenSet(
            p -> MemoryPolicy.named(p) != null, p -> "must be block, fail, drop or page, was '" + p + "'");

    private TopicConfiguration() {
    }
}
