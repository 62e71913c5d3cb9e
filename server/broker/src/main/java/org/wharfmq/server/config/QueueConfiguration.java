package org.wharfmq.server.config;

import java.util.ArrayList;
import java.util.List;

/**
 * The keys of an entry of {@code queues:} in config/wharf.yaml, each one {@link Setting} with the values it accepts:
 * those of a queue ({@link QueueDefinition}) here, those of a name that leads to one ({@link QueueReference}, with a
 * {@code type}) in {@link Reference}. None has a default of its own: a queue that leaves a key out takes the queue
 * manager's setting of the same kind ({@code maxQueueDepth}, {@code memoryPolicy}...), or has none. The same rules
 * check a queue defined or altered at run time ({@code wharf admin define|alter queue}) and one read back from the
 * definitions file; the rules between keys are {@link QueueDefinition}'s and {@link QueueReference}'s.
 */
public final class QueueConfiguration {

    /** {@code name}: the queue's; required, no '/' (the queue manager's settings check it, with its number). */
    public static final Setting<String> NAME = Setting.text("name", null);
    /** {@code maxDepth}: its own depth limit, at least 1 (none: {@code maxQueueDepth}). */
    public static final Setting<Long> MAX_DEPTH = Setting.optionalWhole("maxDepth").atLeast(1);
    /** {@code maxBytes}: its own memory budget in bytes, at least 1 (none: only {@code maxMemoryBytes} bounds it). */
    public static final Setting<Long> MAX_BYTES = Setting.optionalWhole("maxBytes").atLeast(1);
    /** {@code policy}: page, block or fail when a budget is spent (none: {@code memoryPolicy}); never drop. */
    public static final Setting<String> POLICY = Setting.text("policy", null).whenSet(
            p -> MemoryPolicy.named(p) != null && MemoryPolicy.named(p) != MemoryPolicy.DROP,
            p -> "must be page, block or fail, was " + p + (MemoryPolicy.named(p) == MemoryPolicy.DROP
                    ? " (a queue never drops messages; drop is for topics)" : ""));
    /** {@code maxPageBytes}: with page, its own disk budget in bytes (none: only {@code maxPageBytes} bounds it). */
    public static final Setting<Long> MAX_PAGE_BYTES = Setting.optionalWhole("maxPageBytes").atLeast(1);
    /** {@code pageFullPolicy}: with page, block or fail when a disk budget is spent too (none: the server's). */
    public static final Setting<String> PAGE_FULL_POLICY = Setting.text("pageFullPolicy", null).whenSet(
            p -> MemoryPolicy.named(p) == MemoryPolicy.BLOCK || MemoryPolicy.named(p) == MemoryPolicy.FAIL,
            p -> "must be block or fail, was " + p);
    /** {@code backoutThreshold}: backouts before a message moves to the backout queue (none: never moved). */
    public static final Setting<Integer> BACKOUT_THRESHOLD = Setting.optionalInteger("backoutThreshold").whenSet(
            n -> n >= 1, n -> "must be at least 1 (leave it out for no backout), was " + n);
    /** {@code backoutQueue}: where such a message goes (none: the dead-letter queue); another queue's name. */
    public static final Setting<String> BACKOUT_QUEUE = Setting.text("backoutQueue", null).whenSet(
            q -> !q.isEmpty(), q -> "must be another queue's name, was ''");
    /** {@code depthHighEvent}: a percentage of maxDepth, 1-100, that raises a depth-high event (none: no events). */
    public static final Setting<Integer> DEPTH_HIGH_EVENT = Setting.optionalInteger("depthHighEvent").whenSet(
            n -> n >= 1 && n <= 100, n -> "must be a percentage of maxDepth from 1 to 100, was " + n);
    /** {@code depthLowEvent}: a percentage below depthHighEvent that raises a depth-low event after one (none). */
    public static final Setting<Integer> DEPTH_LOW_EVENT = Setting.optionalInteger("depthLowEvent");
    /** {@code fullEvent}: whether a put refused by a full queue raises a queue-full event (none: false). */
    public static final Setting<Boolean> FULL_EVENT = Setting.optionalFlag("fullEvent");
    /** {@code usage}: {@code transmission} for a transmission queue (none, or {@code normal}: an ordinary queue). */
    public static final Setting<String> USAGE = Setting.choice("usage", null, QueueConfiguration::usage).whenSet(
            QueueDefinition.TRANSMISSION::equals, u -> "must be " + QueueDefinition.TRANSMISSION + " or "
                    + QueueDefinition.NORMAL + " (an ordinary queue), was " + u);

    private QueueConfiguration() {
    }

    /** The usage {@code text} gives: none for {@code normal} (an ordinary queue), else the text, for USAGE's rule. */
    private static String usage(String text) {
        return QueueDefinition.NORMAL.equals(text) ? null : text;
    }

    /**
     * The keys of an entry of {@code queues:} with a {@code type} other than {@code local}: a name that leads to a
     * queue ({@link QueueReference}), with {@link #NAME}.
     */
    public static final class Reference {

        /** {@code type}: {@code alias} or {@code remote} for a name that leads to a queue (none: a queue). */
        public static final Setting<String> TYPE = Setting.text("type", null).check(
                t -> QueueReference.ALIAS.equals(t) || QueueReference.REMOTE.equals(t),
                t -> "must be local, alias or remote, was " + t);
        /** {@code target}: an alias's queue. */
        public static final Setting<String> TARGET = Setting.text("target", null);
        /** {@code remoteQueue}: a remote definition's queue on the other queue manager (none: a queue-manager alias). */
        public static final Setting<String> REMOTE_QUEUE = name("remoteQueue");
        /** {@code remoteQueueManager}: the other queue manager of a remote definition or queue-manager alias. */
        public static final Setting<String> REMOTE_QUEUE_MANAGER = name("remoteQueueManager");
        /** {@code transmissionQueue}: the transmission queue a remote definition uses (none: the one named after it). */
        public static final Setting<String> TRANSMISSION_QUEUE = name("transmissionQueue");

        private Reference() {
        }

        /** A queue's or queue manager's name, none by default: not empty, no '/'. */
        private static Setting<String> name(String key) {
            return Setting.text(key, null).whenSet(n -> !n.isEmpty() && n.indexOf('/') < 0,
                    n -> "must be a queue or queue manager name (not empty, no '/'), was '" + n + "'");
        }

        /** The keys of such an entry: {@link #NAME} and those declared here. */
        static List<Setting<?>> keys() {
            List<Setting<?>> keys = new ArrayList<>();
            keys.add(NAME);
            keys.addAll(Setting.declaredIn(Reference.class));
            return keys;
        }
    }
}
