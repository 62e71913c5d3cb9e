package org.wharfmq.server.channels;

import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.session.XaBranches.PreparedBranch;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * Channels between queue managers (docs/distributed.md): a plugin of the broker that runs the sender channels (each a
 * {@link SenderChannel} thread reading its transmission queue over the in-VM listener) and receives the partners'
 * sender channels on the queue manager's listeners ({@link ChannelReceivers}, the server's
 * {@link org.wharfmq.server.ChannelAcceptor}).
 *
 * <p>Its channels are those of {@code channels:} in config/wharf.yaml, and those defined or altered at run time
 * ({@link #define}, {@link #alter}, {@link #delete}), which win over the configuration's of the same name; both, and
 * which channels an operator stopped, are kept in {@link ChannelStore} across restarts. The plugin owns the
 * definitions; its changes are serialised (synchronized), its status readable from any thread.
 */
public final class ChannelsPlugin implements ServerPlugin {
    private static final System.Logger LOG = System.getLogger(ChannelsPlugin.class.getName());

    private final ChannelSettings settings;
    /** The senders, in definition order; a stopped one is replaced by a new one when started again. */
    private final List<SenderChannel> senders = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The channels of config/wharf.yaml, by name, in its order. */
    private final Map<String, ChannelDefinition> configured = new LinkedHashMap<>();
    /** The channels defined or altered at run time, by name (kept in {@link #store}). */
    private final Map<String, ChannelDefinition> defined = new LinkedHashMap<>();
    /** The channels an operator stopped, senders and receivers (kept in {@link #store}). */
    private final Set<String> stopped = new LinkedHashSet<>();
    private ChannelStore store;
    /** The sequence numbers operators set on senders, for their receivers (kept in {@link #store}). */
    private SenderResets resets;
    /** {@link #stopped} as status readers on any thread see it, replaced at every {@link #save}. */
    private volatile Set<String> stoppedNow = Set.of();
    private volatile ChannelReceivers receivers;
    private Host host;

    public ChannelsPlugin(ChannelSettings settings) {
        this.settings = settings;
    }

    @Override
    public synchronized void start(Host server) throws Exception {
        host = server;
        store = new ChannelStore(server.config().dataDirectory());
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
        List<ChannelDefinition> receiving = new ArrayList<>();
        for (ChannelDefinition d : definitions()) {
            if (d.type() == ChannelDefinition.Type.RECEIVER) {
                receiving.add(d);
            }
        }
        if (!receiving.isEmpty()) {
            receivers(receiving);
            for (ChannelDefinition d : receiving) {
                if (stopped.contains(d.name())) {
                    receivers.stop(d.name());
                    LOG.log(System.Logger.Level.INFO, "Receiver channel " + d.name() + " stays stopped ('wharf admin"
                            + " start channel " + d.name() + "' starts it)");
                }
            }
        }
        for (ChannelDefinition d : definitions()) {
            if (d.type() == ChannelDefinition.Type.SENDER) {
                SenderChannel sender = newSender(d);
                senders.add(sender);
                if (stopped.contains(d.name())) {
                    sender.stop(); // never started: STOPPED, as the operator left it
                    LOG.log(System.Logger.Level.INFO, "Channel " + d.name() + " stays stopped ('wharf admin start"
                            + " channel " + d.name() + "' starts it)");
                } else {
                    sender.start();
                }
            }
        }
    }

    /** The receivers, started (with {@code first}) when the first receiver is defined. */
    private ChannelReceivers receivers(List<ChannelDefinition> first) throws Exception {
        if (receivers == null) {
            ChannelReceivers started = new ChannelReceivers(first, host);
            started.start();
            host.acceptChannels(started);
            receivers = started;
        }
        return receivers;
    }

    /** The admin commands of the channels ({@code wharf admin define|display channel ...}): give them to the AdminPlugin. */
    public ChannelCommands adminCommands() {
        return new ChannelCommands(this);
    }

    /** Every channel's definition in force: the configuration's (or its run-time replacement), then those defined at run time. */
    synchronized List<ChannelDefinition> definitions() {
        Map<String, ChannelDefinition> all = new LinkedHashMap<>(configured);
        all.putAll(defined);
        return List.copyOf(all.values());
    }

    /** Where channel {@code name}'s definition comes from, as {@code display channel} says it. */
    synchronized String origin(String name) {
        if (configured.containsKey(name)) {
            return defined.containsKey(name) ? "configuration, altered at run time" : "configuration";
        }
        return "defined at run time";
    }

    /** Whether an operator stopped channel {@code name} (it stays stopped across restarts until started). */
    synchronized boolean stopped(String name) {
        return stopped.contains(name);
    }

    /** Every channel's status: the senders, then the receivers, each in definition order. */
    public List<ChannelStatus> status() {
        List<ChannelStatus> all = new ArrayList<>();
        List<PreparedBranch> branches = senders.isEmpty() ? List.of() : host.management().preparedBranches();
        for (SenderChannel s : senders) {
            String queue = s.definition().transmissionQueue();
            Long depth;
            try {
                depth = host.management().queue(queue).depth();
            } catch (RuntimeException missing) {
                depth = null; // the transmission queue is not defined (the channel retries, saying so)
            }
            ChannelStatus status = s.status().with(depth,
                    !ChannelResolution.inDoubt(branches, s.definition().name()).isEmpty());
            all.add(stoppedNow.contains(status.name()) ? status.stoppedByOperator() : status);
        }
        ChannelReceivers r = receivers;
        if (r != null) {
            all.addAll(r.status());
        }
        return all;
    }

    /**
     * Starts channel {@code name} again after {@link #stopChannel}: a sender with its definition in force, a receiver
     * accepting its partner again; refused when it is not stopped.
     *
     * @return what the operator is told
     */
    public synchronized String startChannel(String name) {
        if (definition(name).type() == ChannelDefinition.Type.RECEIVER) {
            if (!stopped.contains(name)) {
                throw new IllegalArgumentException("Receiver channel " + name + " is not stopped (it accepts its"
                        + " partner): nothing to start.");
            }
            stopped.remove(name);
            save();
            receivers.start(name);
            return "Channel " + name + " started (its sender connects at its next retry)";
        }
        SenderChannel sender = sender(name);
        if (sender.state() != SenderChannel.State.STOPPED) {
            throw new IllegalArgumentException("Channel " + name + " is not stopped (it is " + sender.state() + ").");
        }
        stopped.remove(name);
        save();
        SenderChannel again = newSender(definition(name));
        senders.set(senders.indexOf(sender), again);
        again.start();
        return "Channel " + name + " started";
    }

    /**
     * Stops channel {@code name} until {@link #startChannel}, across restarts too. A sender: a batch under way is left
     * in doubt (resolved when it starts again); its transmission queue keeps what it has not sent, and it does not
     * start again on a new message. A receiver: its partner's session ends once the batches it has ended are
     * committed, and the partner is refused until then, retrying as its retry settings say.
     *
     * @return what the operator is told
     */
    public synchronized String stopChannel(String name) {
        if (definition(name).type() == ChannelDefinition.Type.RECEIVER) {
            stopped.add(name);
            save();
            receivers.stop(name);
            return "Channel " + name + " stopped (its partner's session ends; the sender retries until it is started)";
        }
        SenderChannel sender = sender(name);
        stopped.add(name);
        save();
        sender.stop();
        return "Channel " + name + " stopped (its transmission queue keeps what it has not sent)";
    }

    /** A sender of definition {@code d}, not started. */
    private SenderChannel newSender(ChannelDefinition d) {
        return new SenderChannel(d, host.vmUrl(), host.config().name(), resets);
    }

    /**
     * Defines channel {@code name} with {@code attributes} (as config/wharf.yaml names them), kept across restarts; a
     * sender starts at once (it waits for a message on its transmission queue), a receiver accepts its partner.
     *
     * @throws IllegalArgumentException for a name taken or an attribute unknown or wrong, naming it and the fix
     */
    public synchronized ChannelDefinition define(String name, Map<String, String> attributes) throws Exception {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("A channel needs a name, the same on both queue managers.");
        }
        if (configured.containsKey(name) || defined.containsKey(name)) {
            throw new IllegalArgumentException("Channel '" + name + "' exists already (" + origin(name) + "): change"
                    + " it with 'alter channel " + name + "', or give the new channel another name.");
        }
        ChannelDefinition d = read(name, attributes, "define");
        defined.put(name, d);
        try {
            if (d.type() == ChannelDefinition.Type.SENDER) {
                SenderChannel sender = newSender(d);
                senders.add(sender);
                sender.start();
            } else if (receivers == null) {
                receivers(List.of(d));
            } else {
                receivers.define(d);
            }
        } catch (Exception | Error e) {
            defined.remove(name);
            throw e;
        }
        save();
        LOG.log(System.Logger.Level.INFO, "Channel " + name + " defined: " + ChannelAttributes.shown(d));
        return d;
    }

    /**
     * Changes channel {@code name}'s attributes: {@code changes} as config/wharf.yaml names them, an empty value
     * putting one back to its default. A channel with a partner connected keeps the partner it has (a change of it is
     * refused: stop the channel first); a sender's other changes take effect when it next starts.
     *
     * @return what the operator is told
     */
    public synchronized String alter(String name, Map<String, String> changes) throws Exception {
        ChannelDefinition current = definition(name);
        Map<String, String> attributes = ChannelAttributes.of(current);
        String type = changes.get("type");
        if (type != null && !type.equals(attributes.get("type"))) {
            throw new IllegalArgumentException("Channel '" + name + "' is a " + attributes.get("type") + ": its type"
                    + " cannot change. Delete it and define it again as a " + type + ".");
        }
        changes.forEach((key, value) -> {
            if (value == null || value.isEmpty()) {
                attributes.remove(key);
            } else {
                attributes.put(key, value);
            }
        });
        ChannelDefinition altered = read(name, attributes, "alter");
        List<String> partner = partnerChanges(current, altered);
        String effect;
        if (altered.type() == ChannelDefinition.Type.SENDER) {
            SenderChannel sender = sender(name);
            SenderChannel.State state = sender.state();
            boolean idle = state == SenderChannel.State.STOPPED || state == SenderChannel.State.WAITING;
            if (!partner.isEmpty() && !idle) {
                throw new IllegalArgumentException("Channel '" + name + "' is " + state + ": its " + partner + " cannot"
                        + " change under it. Stop it first ('wharf admin stop channel " + name + "'), alter it, then"
                        + " start it.");
            }
            commit(name, altered);
            SenderChannel replacement = newSender(altered);
            if (state == SenderChannel.State.STOPPED) {
                replacement.stop(); // stays stopped, showing its new definition
                senders.set(senders.indexOf(sender), replacement);
                effect = "it stays stopped";
            } else if (state == SenderChannel.State.WAITING) {
                sender.stop(); // nothing under way: started again with the new definition
                senders.set(senders.indexOf(sender), replacement);
                replacement.start();
                effect = "it has started again with them";
            } else {
                effect = "they take effect when it next starts (it is " + state + ")";
            }
        } else {
            if (!partner.isEmpty() && receivers.isRunning(name)) {
                throw new IllegalArgumentException("Receiver channel '" + name + "' has a partner connected: its "
                        + partner + " cannot change under it. Stop the sender on the partner queue manager first, then"
                        + " alter it.");
            }
            commit(name, altered);
            receivers.alter(altered);
            effect = "the next partner to open it meets them";
        }
        LOG.log(System.Logger.Level.INFO, "Channel " + name + " altered: " + ChannelAttributes.shown(altered));
        return "Channel " + name + " altered; " + effect;
    }

    /** The partner attributes (and TLS options) that differ between {@code a} and {@code b}. */
    private static List<String> partnerChanges(ChannelDefinition a, ChannelDefinition b) {
        Map<String, String> before = ChannelAttributes.of(a);
        Map<String, String> after = ChannelAttributes.of(b);
        Set<String> keys = new LinkedHashSet<>(before.keySet());
        keys.addAll(after.keySet());
        List<String> changed = new ArrayList<>();
        for (String key : keys) {
            if ((ChannelAttributes.PARTNER.contains(key) || key.startsWith(ChannelAttributes.TLS))
                    && !java.util.Objects.equals(before.get(key), after.get(key))) {
                changed.add(key);
            }
        }
        return changed;
    }

    private void commit(String name, ChannelDefinition altered) {
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

    /**
     * Deletes channel {@code name}, defined at run time: a sender must be stopped, with no batch in doubt; a receiver
     * must have no partner connected. What a sender's transmission queue holds stays there.
     */
    public synchronized String delete(String name) throws Exception {
        ChannelDefinition d = definition(name);
        if (configured.containsKey(name)) {
            throw new IllegalArgumentException("Channel '" + name + "' is defined in the configuration (channels: in"
                    + " config/wharf.yaml): remove it there and restart the queue manager. 'delete channel' deletes"
                    + " the channels defined at run time.");
        }
        if (d.type() == ChannelDefinition.Type.SENDER) {
            SenderChannel sender = sender(name);
            if (sender.state() != SenderChannel.State.STOPPED) {
                throw new IllegalArgumentException("Channel '" + name + "' is " + sender.state() + ": stop it first"
                        + " ('wharf admin stop channel " + name + "'), then delete it.");
            }
            List<PreparedBranch> doubt = ChannelResolution.inDoubt(host.management().preparedBranches(), name);
            if (!doubt.isEmpty()) {
                throw new IllegalArgumentException("Channel '" + name + "' has batch "
                        + ChannelResolution.batch(doubt.get(0)) + " in doubt (its messages held on "
                        + d.transmissionQueue() + "): resolve it first ('wharf admin resolve"
                        + " channel " + name + " --action commit|backout'), then delete it.");
            }
            senders.remove(sender);
        } else {
            if (receivers.isRunning(name)) {
                throw new IllegalArgumentException("Receiver channel '" + name + "' has a partner connected: stop the"
                        + " sender on the partner queue manager first, then delete it.");
            }
            receivers.delete(name);
        }
        defined.remove(name);
        stopped.remove(name);
        resets.forget(name);
        save();
        LOG.log(System.Logger.Level.INFO, "Channel " + name + " deleted");
        return "Channel " + name + " deleted"
                + (d.type() == ChannelDefinition.Type.SENDER ? " (its transmission queue " + d.transmissionQueue()
                + " keeps what it holds)" : "");
    }

    /**
     * Sets channel {@code name}'s sequence number (IBM MQ's RESET CHANNEL SEQNUM). On a receiver at once (refused
     * while a partner is connected); its sender takes it when it next starts. On a sender, whatever its state: kept
     * (across restarts too) until the sender next opens the channel, when its receiver takes it; the last batch id
     * stays on both, so a batch in doubt is resolved as before.
     */
    public synchronized String reset(String name, long sequence) throws Exception {
        ChannelDefinition d = definition(name);
        if (sequence < 0) {
            throw new IllegalArgumentException("Channel '" + name + "': sequence must be 0 or more, not " + sequence
                    + ".");
        }
        if (d.type() == ChannelDefinition.Type.SENDER) {
            resets.set(name, sequence);
            save();
            SenderChannel.State state = sender(name).state();
            LOG.log(System.Logger.Level.INFO, "Channel " + name + ": sequence number reset to " + sequence + "; its"
                    + " receiver takes it at the channel's next start");
            return "Channel " + name + ": sequence number reset to " + sequence + "; its receiver on the partner"
                    + " queue manager takes it when the channel next starts (it is " + state + (state
                    == SenderChannel.State.RUNNING ? ": after this connection ends, or stop and start it" : "") + ")";
        }
        if (receivers.isRunning(name)) {
            throw new IllegalArgumentException("Receiver channel '" + name + "' has a partner connected: stop the"
                    + " sender on the partner queue manager first, then reset it.");
        }
        long before = receiverStatus(name).sequence();
        receivers.reset(name, sequence);
        LOG.log(System.Logger.Level.INFO, "Channel " + name + ": sequence number reset to " + sequence + " (was "
                + before + ")");
        return "Channel " + name + ": sequence number reset to " + sequence + " (was " + before + "); its sender"
                + " takes it when it next starts";
    }

    private ChannelStatus receiverStatus(String name) {
        return receivers.status().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    /**
     * Completes stopped sender {@code name}'s batch in doubt by hand (IBM MQ's RESOLVE CHANNEL): {@code commit} when
     * the receiver has it (removed from the transmission queue for good), otherwise backed out (back on the
     * transmission queue, first, sent again when the channel starts).
     */
    public synchronized String resolve(String name, boolean commit) throws Exception {
        ChannelDefinition d = definition(name);
        if (d.type() != ChannelDefinition.Type.SENDER) {
            throw new IllegalArgumentException("Channel '" + name + "' is a receiver: a batch is in doubt on its sender"
                    + " only. Resolve it on the partner queue manager.");
        }
        SenderChannel sender = sender(name);
        if (sender.state() != SenderChannel.State.STOPPED) {
            throw new IllegalArgumentException("Channel '" + name + "' is " + sender.state() + ": a channel that runs"
                    + " resolves its batch in doubt itself, with its receiver. Stop it first ('wharf admin stop"
                    + " channel " + name + "') to resolve it by hand.");
        }
        List<PreparedBranch> doubt = ChannelResolution.inDoubt(host.management().preparedBranches(), name);
        if (doubt.isEmpty()) {
            throw new IllegalArgumentException("Channel '" + name + "' has no batch in doubt: nothing to resolve.");
        }
        StringBuilder said = new StringBuilder();
        for (PreparedBranch branch : doubt) {
            ChannelResolution.complete(host.vmUrl(), name, branch, commit);
            String line = "Channel " + name + ": batch " + ChannelResolution.batch(branch) + " "
                    + (commit ? "committed: its messages are removed from " + d.transmissionQueue()
                    : "backed out: its messages are back on " + d.transmissionQueue() + ", sent again when the"
                    + " channel starts");
            LOG.log(System.Logger.Level.WARNING, line + " (resolved by an operator)");
            said.append(said.isEmpty() ? "" : "\n").append(line);
        }
        return said.toString();
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

    private ChannelDefinition read(String name, Map<String, String> attributes, String verb) {
        try {
            return ChannelAttributes.read(name, attributes, "the command '" + verb + " channel " + name + "'");
        } catch (ConfigurationException e) {
            String done = verb.endsWith("e") ? verb + "d" : verb + "ed"; // defined, altered
            throw new IllegalArgumentException("Channel '" + name + "' is not " + done + ": " + e.getMessage()
                    + " (every attribute: docs/distributed.md, 'Channels defined at run time')");
        }
    }

    private void save() {
        store.write(new ChannelStore.Contents(defined, stopped, resets.all()));
        stoppedNow = Set.copyOf(stopped);
    }

    /** Rewrites the store off the calling thread (a sender's, which must not wait for this plugin's changes). */
    private void saveSoon() {
        java.util.concurrent.CompletableFuture.runAsync(() -> {
            synchronized (this) {
                try {
                    save();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "The channels' store was not rewritten after a reset was"
                            + " delivered: " + e.getMessage());
                }
            }
        });
    }

    private SenderChannel sender(String name) {
        for (SenderChannel s : senders) {
            if (s.definition().name().equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("No sender channel named '" + name + "' is defined (its senders: "
                + senders.stream().map(s -> s.definition().name()).toList() + ").");
    }

    /** How many messages sender {@code name} has had confirmed by its partner since it started. */
    public long messagesSent(String name) {
        return sender(name).messagesSent();
    }

    /**
     * Test hooks, run on sender {@code name}'s thread: {@code afterPrepare} once a batch's removal from the
     * transmission queue is prepared, before the batch ends on the partner; {@code afterConfirm} after the partner has
     * committed the batch, before the removal commits. One that throws leaves the batch in doubt, as a crash of the
     * sending queue manager at that moment does.
     */
    void hooks(String name, Runnable afterPrepare, Runnable afterConfirm) {
        for (SenderChannel s : senders) {
            if (s.definition().name().equals(name)) {
                s.hooks(afterPrepare, afterConfirm);
            }
        }
    }

    @Override
    public void close() {
        for (SenderChannel s : senders) {
            s.stop();
        }
        ChannelReceivers r = receivers;
        if (host != null && r != null) {
            host.acceptChannels(null);
        }
        if (r != null) {
            r.close();
        }
    }
}
