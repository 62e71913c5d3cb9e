package org.wharfmq.server.channels;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The channels' definitions: those of {@code channels:} in config/wharf.yaml, and those defined or altered at run time,
 * which win over the configuration's of the same name; both, which channels an operator stopped and the sequence
 * numbers operators reset senders to ({@link SenderResets}) are kept in {@link ChannelStore} across restarts.
 *
 * <p>Owns the definitions, the stopped channels and the resets: {@link ChannelAdmin} changes them, one change at a
 * time; they are readable from any thread (synchronized; which channels are stopped without a lock, for the status and
 * a partner's open).
 */
final class ChannelDefinitions {
    private static final System.Logger LOG = System.getLogger(ChannelDefinitions.class.getName());

    /** The channels of config/wharf.yaml, by name, in its order. */
    private final Map<String, ChannelDefinition> configured = new LinkedHashMap<>();
    /** The channels defined or altered at run time, by name (kept in {@link #store}). */
    private final Map<String, ChannelDefinition> defined = new LinkedHashMap<>();
    /** The channels an operator stopped, senders and receivers (kept in {@link #store}). */
    private final Set<String> stopped = new LinkedHashSet<>();
    /** {@link #stopped} as readers on any thread see it, replaced at every {@link #save}. */
    private volatile Set<String> stoppedNow = Set.of();
    /** The sequence numbers operators reset senders to, for their receivers (kept in {@link #store}). */
    private SenderResets resets;
    private ChannelStore store;

    /** Takes the configuration's channels, then what the store in {@code dataDirectory} kept. */
    synchronized void load(ChannelSettings settings, Path dataDirectory) {
        store = new ChannelStore(dataDirectory);
        ChannelStore.Contents kept = store.read();
        for (ChannelDefinition d : settings.channels()) {
            configured.put(d.name(), d);
        }
        defined.putAll(kept.defined());
        stopped.addAll(kept.stopped());
        stoppedNow = Set.copyOf(stopped);
        resets = new SenderResets(kept.resets(), this::saveSoon);
        for (String name : defined.keySet()) {
            if (configured.containsKey(name)) {
                LOG.log(System.Logger.Level.INFO, "Channel " + name + ": the definition made at run time (kept in "
                        + store.path() + ") is used instead of the configuration's");
            }
        }
    }

    /** Every channel's definition in force: the configuration's (or its run-time replacement), then those defined at run time. */
    synchronized List<ChannelDefinition> definitions() {
        Map<String, ChannelDefinition> all = new LinkedHashMap<>(configured);
        all.putAll(defined);
        return List.copyOf(all.values());
    }

    /** Channel {@code name}'s definition in force. */
    synchronized ChannelDefinition definition(String name) {
        ChannelDefinition d = defined.getOrDefault(name, configured.get(name));
        if (d == null) {
            throw new NoSuchElementException("No channel named '" + name + "' is defined (its channels: "
                    + definitions().stream().map(ChannelDefinition::name).toList() + "). Define it with 'wharf admin"
                    + " define channel " + name + "'.");
        }
        return d;
    }

    /** Whether channel {@code name} is defined, in the configuration or at run time. */
    synchronized boolean exists(String name) {
        return configured.containsKey(name) || defined.containsKey(name);
    }

    /** Whether channel {@code name} is defined in the configuration (and so cannot be deleted at run time). */
    synchronized boolean configured(String name) {
        return configured.containsKey(name);
    }

    /** Where channel {@code name}'s definition comes from, as {@code display channel} says it. */
    synchronized String origin(String name) {
        if (configured.containsKey(name)) {
            return defined.containsKey(name) ? "configuration, altered at run time" : "configuration";
        }
        return "defined at run time";
    }

    /** Whether an operator stopped channel {@code name} (it stays stopped across restarts until started). Any thread. */
    boolean stopped(String name) {
        return stoppedNow.contains(name);
    }

    /** Marks channel {@code name} stopped by an operator, kept. */
    synchronized void stop(String name) {
        stopped.add(name);
        save();
    }

    /** Marks channel {@code name} started again by an operator, kept. */
    synchronized void start(String name) {
        stopped.remove(name);
        save();
    }

    /** The sequence numbers operators reset senders to, which the senders give their receivers at the next open. */
    synchronized SenderResets resets() {
        return resets;
    }

    /** Sender {@code name}'s receiver is to take {@code sequence} at the channel's next open, kept. */
    synchronized void reset(String name, long sequence) {
        resets.set(name, sequence);
        save();
    }

    /** Adds {@code d}, defined at run time, unkept: {@link #save} once its channel runs, {@link #remove} if not. */
    synchronized void put(String name, ChannelDefinition d) {
        defined.put(name, d);
    }

    /** Takes back what {@link #put} added. */
    synchronized void remove(String name) {
        defined.remove(name);
    }

    /** Replaces channel {@code name}'s definition with {@code altered}, kept; as it was when it cannot be kept. */
    synchronized void commit(String name, ChannelDefinition altered) {
        ChannelDefinition before = defined.put(name, altered);
        try {
            save();
        } catch (RuntimeException e) {
            if (before == null) {
                defined.remove(name);
            } else {
                defined.put(name, before);
            }
            throw e;
        }
    }

    /** Forgets channel {@code name}, defined at run time, that it was stopped and its reset, kept. */
    synchronized void delete(String name) {
        defined.remove(name);
        stopped.remove(name);
        resets.forget(name);
        save();
    }

    /** Writes the run-time definitions, the stopped channels and the resets to the store. */
    synchronized void save() {
        store.write(new ChannelStore.Contents(defined, stopped, resets.all()));
        stoppedNow = Set.copyOf(stopped);
    }

    /** Rewrites the store off the calling thread (a sender's, which delivered a reset and must not wait for it). */
    private void saveSoon() {
        CompletableFuture.runAsync(() -> {
            try {
                save();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "The channels' store was not rewritten after a reset was"
                        + " delivered: " + e.getMessage());
            }
        });
    }
}
