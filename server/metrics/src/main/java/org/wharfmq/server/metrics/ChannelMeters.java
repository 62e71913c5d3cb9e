package org.wharfmq.server.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.wharfmq.server.channels.ChannelDefinition;
import org.wharfmq.server.channels.ChannelStatus;
import org.wharfmq.server.channels.ChannelsPlugin;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The meters of each channel to and from other queue managers ({@code wharf_channel_messages_total{channel="TO.QM2",
 * type="sender"}}, its bytes, batches, sequence number, transmission queue depth, batch in doubt and its messages,
 * and its state as one gauge per state, 1 for the one it is in, the nonPersistentSpeed agreed, one gauge per speed,
 * and what stopped it, one gauge per cause), read from what {@code wharf admin display chstatus} shows
 * ({@link ChannelStatus}): one listing per scrape ({@link Snapshot}). Channels are defined and deleted at run time:
 * {@link #refresh()} registers the meters of new ones and removes those of gone ones.
 */
final class ChannelMeters {

    /** A sender's states and a receiver's, as {@link ChannelStatus#state()} names them. */
    private static final List<String> SENDER_STATES = List.of("STARTING", "WAITING", "RUNNING", "RETRYING", "STOPPED");
    private static final List<String> RECEIVER_STATES = List.of("RUNNING", "INACTIVE", "STOPPED");

    private final MeterRegistry registry;
    private final Snapshot<Map<String, ChannelStatus>> channels;
    /** The meters of each channel, by name and type; guarded by this. */
    private final Map<String, List<Meter>> meters = new HashMap<>();

    ChannelMeters(MeterRegistry registry, ChannelsPlugin plugin) {
        this.registry = registry;
        this.channels = new Snapshot<>(() -> {
            Map<String, ChannelStatus> byKey = new HashMap<>();
            for (ChannelStatus c : plugin.status()) {
                byKey.put(key(c), c);
            }
            return byKey;
        });
    }

    private static String key(ChannelStatus c) {
        return c.type() + "/" + c.name();
    }

    /** Lists the channels anew; registers the meters of new channels, removes those of deleted ones. */
    synchronized void refresh() {
        Map<String, ChannelStatus> now = channels.refresh();
        for (ChannelStatus c : now.values()) {
            meters.computeIfAbsent(key(c), k -> register(c));
        }
        for (Iterator<Map.Entry<String, List<Meter>>> it = meters.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, List<Meter>> channel = it.next();
            if (!now.containsKey(channel.getKey())) {
                channel.getValue().forEach(registry::remove);
                it.remove();
            }
        }
    }

    private List<Meter> register(ChannelStatus c) {
        String key = key(c);
        Tags tags = Tags.of("channel", c.name(), "type", c.type());
        boolean sender = c.type().equals("sender");
        List<Meter> list = new ArrayList<>();
        list.add(counter("wharf.channel.messages", sender ? "Messages the partner confirmed since the channel started"
                : "Messages committed since the queue manager started", null, tags, key, ChannelStatus::messages));
        list.add(counter("wharf.channel.bytes", "Bytes of those messages, as stored", "bytes", tags, key,
                ChannelStatus::bytes));
        list.add(counter("wharf.channel.batches", "Batches of those messages", null, tags, key,
                ChannelStatus::batches));
        list.add(gauge("wharf.channel.sequence", "The channel's sequence number as this end last knew it", tags, key,
                ChannelStatus::sequence));
        if (sender) {
            list.add(gauge("wharf.channel.transmission.queue.depth", "Messages waiting on the channel's transmission"
                    + " queue", tags, key, s -> s.transmissionQueueDepth() == null ? Double.NaN
                    : s.transmissionQueueDepth()));
            list.add(gauge("wharf.channel.in.doubt", "1 while a batch is in doubt (its removal prepared, its outcome"
                    + " unknown): resolved when the channel runs, or by 'resolve channel'", tags, key,
                    s -> s.inDoubt() ? 1 : 0));
            list.add(gauge("wharf.channel.in.doubt.messages", "The messages of its batches in doubt, held on its"
                    + " transmission queue until they are resolved (display chstatus names each batch)", tags, key,
                    s -> s.batchesInDoubt().stream().mapToInt(ChannelStatus.BatchInDoubt::messages).sum()));
        }
        for (String state : sender ? SENDER_STATES : RECEIVER_STATES) {
            list.add(gauge("wharf.channel.state", "1 for the state the channel is in, 0 for the others",
                    tags.and("state", state), key, s -> s.state().equals(state) ? 1 : 0));
        }
        for (ChannelDefinition.NonPersistentSpeed speed : ChannelDefinition.NonPersistentSpeed.values()) {
            String text = speed.text();
            list.add(gauge("wharf.channel.non.persistent.speed", "1 for the nonPersistentSpeed both ends agreed when"
                    + " the channel opened (fast only when both say fast), 0 for the other; both 0 while it is not"
                    + " connected", tags.and("speed", text), key, s -> text.equals(s.nonPersistentSpeed()) ? 1 : 0));
        }
        for (String cause : ChannelStatus.STOP_CAUSES) {
            list.add(gauge("wharf.channel.stop.cause", "1 for what stopped the channel (an operator, a batch its"
                    + " partner could not take, a partner that broke the protocol, or one that left FAST messages"
                    + " unconfirmed, retried meanwhile: display chstatus says why and the fix), 0 for the others",
                    tags.and("cause", cause), key, s -> cause.equals(s.stopCause()) ? 1 : 0));
        }
        return list;
    }

    private Gauge gauge(String meter, String description, Tags tags, String key, ToDoubleFunction<ChannelStatus> f) {
        return Gauge.builder(meter, this, m -> m.value(key, f)).tags(tags).description(description)
                .register(registry);
    }

    private FunctionCounter counter(String meter, String description, String unit, Tags tags, String key,
                                    ToDoubleFunction<ChannelStatus> f) {
        return FunctionCounter.builder(meter, this, m -> m.value(key, f)).tags(tags).description(description)
                .baseUnit(unit).register(registry);
    }

    /** The channel's number in the current snapshot; NaN once it is gone (its meters go at the next refresh). */
    private double value(String key, ToDoubleFunction<ChannelStatus> f) {
        ChannelStatus status = channels.get().get(key);
        return status == null ? Double.NaN : f.applyAsDouble(status);
    }
}
