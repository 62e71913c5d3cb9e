package org.wharfmq.server.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.wharfmq.server.management.Management;
import org.wharfmq.server.management.QueueStatus;
import org.wharfmq.server.queue.QueueOrigin;

import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The meters of each queue ({@code wharf_queue_depth{queue="ORDERS"}}, its counters, consumers, producers), read from
 * the management view's {@link QueueStatus}es: one listing of every queue per scrape ({@link Snapshot}), no meter
 * on the queues' own paths. Queues come and go: {@link #refresh()} (before each scrape, and periodically for JMX)
 * registers the meters of new queues and removes those of deleted ones. Temporary queues have no meters of their
 * own (their names are new for every requester: a label per name would grow without end); {@code wharf_queues}
 * counts them among the rest.
 */
final class QueueMeters {

    private final MeterRegistry registry;
    private final Snapshot<Map<String, QueueStatus>> queues;
    /** The meters of each queue that has them; guarded by this. */
    private final Map<String, List<Meter>> meters = new HashMap<>();

    QueueMeters(MeterRegistry registry, Management management) {
        this.registry = registry;
        this.queues = new Snapshot<>(() -> byName(management.queues(null)));
    }

    private static Map<String, QueueStatus> byName(List<QueueStatus> all) {
        Map<String, QueueStatus> byName = new HashMap<>(all.size() * 2);
        for (QueueStatus q : all) {
            if (q.origin() != QueueOrigin.TEMPORARY) {
                byName.put(q.name(), q);
            }
        }
        return byName;
    }

    /** Lists the queues anew; registers the meters of new queues, removes those of deleted ones. */
    synchronized void refresh() {
        Map<String, QueueStatus> now = queues.refresh();
        for (String name : now.keySet()) {
            meters.computeIfAbsent(name, this::register);
        }
        for (Iterator<Map.Entry<String, List<Meter>>> it = meters.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, List<Meter>> queue = it.next();
            if (!now.containsKey(queue.getKey())) {
                queue.getValue().forEach(registry::remove);
                it.remove();
            }
        }
    }

    private List<Meter> register(String name) {
        Tags tags = Tags.of("queue", name);
        return List.of(
                gauge("wharf.queue.depth", "Messages the queue holds: waiting, delivered and unacknowledged, in "
                        + "open transactions, delayed", tags, name, QueueStatus::depth),
                gauge("wharf.queue.max.depth", "The most messages the queue may hold", tags, name,
                        QueueStatus::maxDepth),
                Gauge.builder("wharf.queue.memory", this, m -> m.value(name, QueueStatus::memoryBytes))
                        .baseUnit("bytes").tags(tags)
                        .description("Bytes of the queue's messages in memory, as its memory budget and the server's"
                                + " count them")
                        .register(registry),
                gauge("wharf.queue.paged.messages", "Messages of the queue's depth kept on disk only (paged)", tags, name,
                        QueueStatus::paged),
                Gauge.builder("wharf.queue.paged", this, m -> m.value(name, QueueStatus::pagedBytes))
                        .baseUnit("bytes").tags(tags)
                        .description("Bytes of the queue's page records, as the disk budgets count them")
                        .register(registry),
                gauge("wharf.queue.consumers", "Open consumers of the queue", tags, name, QueueStatus::consumers),
                gauge("wharf.queue.producers", "Open producers whose destination is the queue", tags, name,
                        QueueStatus::producers),
                Gauge.builder("wharf.queue.oldest.message.age", this, m -> m.value(name, q ->
                                q.oldestMessageAgeMillis() == null ? 0 : q.oldestMessageAgeMillis() / 1000.0))
                        .baseUnit("seconds").tags(tags)
                        .description("Age of the oldest waiting message by its JMSTimestamp; 0 when none waits")
                        .register(registry),
                counter("wharf.queue.enqueued", "Messages put on the queue (sent and committed, moved or "
                        + "dead-lettered here)", tags, name, QueueStatus::enqueued),
                counter("wharf.queue.dequeued", "Messages removed from the queue for good (acknowledged, moved "
                        + "away, cleared)", tags, name, QueueStatus::dequeued),
                counter("wharf.queue.expired", "Messages discarded because they expired", tags, name,
                        QueueStatus::expired),
                counter("wharf.queue.dead.lettered", "Messages moved from the queue to its backout queue or the "
                        + "dead-letter queue", tags, name, QueueStatus::deadLettered));
    }

    private Gauge gauge(String meter, String description, Tags tags, String queue, ToDoubleFunction<QueueStatus> f) {
        return Gauge.builder(meter, this, m -> m.value(queue, f)).tags(tags).description(description)
                .register(registry);
    }

    private FunctionCounter counter(String meter, String description, Tags tags, String queue,
                                    ToDoubleFunction<QueueStatus> f) {
        return FunctionCounter.builder(meter, this, m -> m.value(queue, f)).tags(tags).description(description)
                .register(registry);
    }

    /** The queue's number in the current snapshot; NaN once it is gone (its meters are removed at the next refresh). */
    private double value(String queue, ToDoubleFunction<QueueStatus> f) {
        QueueStatus status = queues.get().get(queue);
        return status == null ? Double.NaN : f.applyAsDouble(status);
    }
}
