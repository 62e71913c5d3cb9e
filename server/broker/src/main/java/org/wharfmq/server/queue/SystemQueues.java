package org.wharfmq.server.queue;

/**
 * The queue names the queue manager keeps for itself, all under {@code SYSTEM.}, defined here and nowhere else:
 * <ul>
 *   <li>{@value #DEAD_LETTER_QUEUE}: where messages go that cannot stay where they are ({@link DeadLetters}); any
 *       client may consume from it.</li>
 *   <li>{@value #SUBSCRIPTION_PREFIX}{@code D<n>} and {@code N<n>}: the queues of durable and non-durable topic
 *       subscriptions;</li>
 *   <li>{@value #RETAINED_PREFIX}{@code <topic>}: the pseudo queue a persistent retained publication is journaled
 *       on;</li>
 *   <li>{@value #FLOW_CHECKPOINT_PREFIX}{@code <flow>.<node>}: where a flow's FileInput node keeps its checkpoint
 *       (the flow engine's {@code FileInputNode.checkpointQueue} names them), one persistent message replaced in each
 *       record's transaction; the flow host makes them ({@code FlowHost}). Besides admins, a user reaches one only
 *       through a permissions rule whose pattern names {@code SYSTEM} ({@code SYSTEM.FLOW.CHECKPOINT.**}): the flow
 *       host's {@code flowHost.user}.</li>
 * </ul>
 * Clients cannot address the last two ({@link #isReserved}); recovery tells them apart by these prefixes. (The flow
 * host's admin queues, {@code SYSTEM.ADMIN.*}, are ordinary queues its own flow consumes.)
 */
public final class SystemQueues {

    /** The dead-letter queue; the flow engine's {@code RunningFlow.DEAD_LETTER_QUEUE} is the same queue. */
    public static final String DEAD_LETTER_QUEUE = "SYSTEM.DEAD.LETTER.QUEUE";
    /** Where admin commands are sent ({@code wharf flow ...}, {@code wharf topic list}); admins only. */
    public static final String ADMIN_COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE";
    /** Where the command line takes the admin commands' replies from, by correlation id; admins only. */
    public static final String ADMIN_REPLY_QUEUE = "SYSTEM.ADMIN.REPLY.QUEUE";
    /** The prefix of every queue the queue manager keeps for itself; only admins may use such a queue. */
    public static final String SYSTEM_PREFIX = "SYSTEM.";
    /** Every topic subscription's queue name starts with this. */
    public static final String SUBSCRIPTION_PREFIX = "SYSTEM.SUB.";
    /** A durable subscription's queue: this and a number. */
    public static final String DURABLE_SUBSCRIPTION_PREFIX = SUBSCRIPTION_PREFIX + "D";
    /** A non-durable subscription's queue: this and a number. */
    public static final String NON_DURABLE_SUBSCRIPTION_PREFIX = SUBSCRIPTION_PREFIX + "N";
    /** A persistent retained publication is journaled as a message on this and its topic. */
    public static final String RETAINED_PREFIX = "SYSTEM.RETAINED.";
    /** A FileInput node's checkpoint queue: this, its flow's name, a dot and its name. */
    public static final String FLOW_CHECKPOINT_PREFIX = "SYSTEM.FLOW.CHECKPOINT.";

    private SystemQueues() {
    }

    /** Whether clients may not address {@code name}: a subscription's queue or a retained publication's. */
    public static boolean isReserved(String name) {
        return isSubscriptionQueue(name) || isRetainedQueue(name);
    }

    /** Whether {@code name} is one of the queue manager's own queues ({@value #SYSTEM_PREFIX}...). */
    public static boolean isSystem(String name) {
        return name.startsWith(SYSTEM_PREFIX);
    }

    /** Whether {@code name} is a FileInput node's checkpoint queue here (not another queue manager's). */
    public static boolean isFlowCheckpoint(String name) {
        return name.startsWith(FLOW_CHECKPOINT_PREFIX);
    }

    /** Whether {@code name} is a topic subscription's queue. */
    public static boolean isSubscriptionQueue(String name) {
        return name.startsWith(SUBSCRIPTION_PREFIX);
    }

    /** Whether {@code name} is the pseudo queue of a retained publication. */
    public static boolean isRetainedQueue(String name) {
        return name.startsWith(RETAINED_PREFIX);
    }

    /** The pseudo queue a retained publication of {@code topic} is journaled on. */
    public static String retainedQueue(String topic) {
        return RETAINED_PREFIX + topic;
    }

    /** The topic of a retained publication's pseudo queue ({@link #isRetainedQueue}). */
    public static String retainedTopic(String queueName) {
        return queueName.substring(RETAINED_PREFIX.length());
    }
}
