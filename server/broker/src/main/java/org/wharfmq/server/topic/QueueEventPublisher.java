package org.wharfmq.server.topic;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.CompactionArena;
import org.wharfmq.server.queue.QueueEvent;
import org.wharfmq.server.queue.QueueEvents;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Publishes the queues' {@link QueueEvent}s as messages on the event topics, {@value #TOPIC_PREFIX}{@code <KIND>}
 * ({@code DEPTH_HIGH}, {@code DEPTH_LOW}, {@code FULL}), and logs each: IBM MQ's performance events, which it puts on
 * {@code SYSTEM.ADMIN.PERFM.EVENT}, made a topic so that any number of monitors can subscribe (docs/operations.md,
 * "Events"). Only the queue manager publishes there; who may subscribe is in docs/security.md.
 *
 * <p>An event is a non-persistent TextMessage whose body says what happened in a sentence, for people, and whose
 * properties carry the facts, for programs and selectors: {@value #KIND_PROPERTY}, {@value #QUEUE_PROPERTY},
 * {@value #DEPTH_PROPERTY}, {@value #MAX_DEPTH_PROPERTY}, {@value #THRESHOLD_PROPERTY} and {@value #TIME_PROPERTY}
 * (also its JMSTimestamp). Non-persistent: an event says how a queue is now; a monitor that was away asks the
 * management view, it does not replay old events. A durable subscription still keeps them while its subscriber is
 * away, in memory.
 *
 * <p>Events are rare (one per crossing), so publishing one may allocate and takes this object's monitor; it runs on
 * the thread whose put or get crossed the threshold, after the queue's lock is released.
 */
public final class QueueEventPublisher implements QueueEvents {

    /** The event topics' common part; the event's kind is the last level. */
    public static final String TOPIC_PREFIX = TopicNames.SYSTEM_LEVEL + "/EVENTS/QUEUE/";
    /** String property: the event's kind, {@code DEPTH_HIGH}, {@code DEPTH_LOW} or {@code FULL}. */
    public static final String KIND_PROPERTY = "WHARF_EVENT";
    /** String property: the queue's name. */
    public static final String QUEUE_PROPERTY = "WHARF_EVENT_QUEUE";
    /** Long property: the queue's depth when it happened. */
    public static final String DEPTH_PROPERTY = "WHARF_EVENT_DEPTH";
    /** Long property: the queue's maxDepth then. */
    public static final String MAX_DEPTH_PROPERTY = "WHARF_EVENT_MAX_DEPTH";
    /** Long property: the threshold crossed, in messages (maxDepth for FULL). */
    public static final String THRESHOLD_PROPERTY = "WHARF_EVENT_THRESHOLD";
    /** Long property: when, epoch ms. */
    public static final String TIME_PROPERTY = "WHARF_EVENT_TIME";

    private static final System.Logger LOG = System.getLogger(QueueEventPublisher.class.getName());

    private final TopicManager topics;
    private final ScheduledExecutorService timer;
    /** Routing wants one for a publication that waits; guarded by this object's monitor. */
    private final CompactionArena arena = new CompactionArena(ByteBufAllocator.DEFAULT);
    private long published;

    /**
     * @param topics where events are published
     * @param timer  what offers a delayed copy (an event has no delivery delay, so it is never used)
     */
    public QueueEventPublisher(TopicManager topics, ScheduledExecutorService timer) {
        this.topics = topics;
        this.timer = timer;
    }

    /** The topic of events of {@code kind}. */
    public static String topic(QueueEvent.Kind kind) {
        return TOPIC_PREFIX + kind.name();
    }

    @Override
    public synchronized void publish(QueueEvent event) {
        String text = describe(event);
        LOG.log(event.kind() == QueueEvent.Kind.DEPTH_LOW ? System.Logger.Level.INFO : System.Logger.Level.WARNING,
                text);
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.TEXT;
        m.persistent = false;
        m.timestamp = event.time();
        m.messageId = "ID:wharf-event-" + (++published) + "-" + event.time();
        m.destination = WireDestination.topic(topic(event.kind()));
        m.properties.put(KIND_PROPERTY, event.kind().name());
        m.properties.put(QUEUE_PROPERTY, event.queue());
        m.properties.put(DEPTH_PROPERTY, event.depth());
        m.properties.put(MAX_DEPTH_PROPERTY, event.maxDepth());
        m.properties.put(THRESHOLD_PROPERTY, event.threshold());
        m.properties.put(TIME_PROPERTY, event.time());
        m.body = text.getBytes(StandardCharsets.UTF_8);
        ByteBuf content = PooledByteBufAllocator.DEFAULT.heapBuffer(m.body.length + 512);
        m.encode(content);
        try {
            Publication publication = topics.route(content, MessageHeaders.read(content), null, null, arena, timer);
            topics.publish(publication, timer);
        } catch (WharfException refused) { // a subscription's memory budget with policy fail: the log keeps it
            LOG.log(System.Logger.Level.WARNING, "The event could not be published on " + topic(event.kind()) + ": "
                    + refused.getMessage());
        } finally {
            content.release(); // the copies hold their own references
        }
    }

    /** The event in a sentence: "Queue 'ORDERS' reached its depth-high threshold: 80 messages (80 of maxDepth 100)." */
    static String describe(QueueEvent e) {
        return switch (e.kind()) {
            case DEPTH_HIGH -> "Queue '" + e.queue() + "' reached its depth-high threshold of " + e.threshold()
                    + " messages (depthHighEvent, a percentage of its maxDepth " + e.maxDepth() + "): it holds "
                    + e.depth() + ". Its consumers are not keeping up.";
            case DEPTH_LOW -> "Queue '" + e.queue() + "' fell to its depth-low threshold of " + e.threshold()
                    + " messages (depthLowEvent, a percentage of its maxDepth " + e.maxDepth() + "): it holds "
                    + e.depth() + ".";
            case FULL -> "Queue '" + e.queue() + "' is full: a put was refused at its maxDepth of " + e.maxDepth()
                    + " messages.";
        };
    }
}
