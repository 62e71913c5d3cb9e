package org.wharfmq.server.channels;

import org.wharfmq.server.admin.AdminException;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.session.XaBranches.PreparedBranch;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What operators do to the channels at run time ({@link ChannelCommands}, {@code wharf admin ... channel}): define,
 * alter, delete, start and stop, reset a channel's sequence number, resolve a sender's batch in doubt. Each
 * changes the {@link ChannelDefinitions} and the {@link RunningChannels} together; the changes are serialised
 * (synchronized), the start of the channels among them ({@link ChannelsPlugin#start}).
 */
final class ChannelAdmin {
    private static final System.Logger LOG = System.getLogger(ChannelAdmin.class.getName());

    private final ChannelDefinitions definitions;
    private final RunningChannels running;

    ChannelAdmin(ChannelDefinitions definitions, RunningChannels running) {
        this.definitions = definitions;
        this.running = running;
    }

    /**
     * Starts channel {@code name} again after {@link #stopChannel}: a sender with its definition in force, a receiver
     * accepting its partner again; refused when it is not stopped.
     *
     * @return what the operator is told
     */
    synchronized String startChannel(String name) {
        if (definitions.definition(name).type() == ChannelDefinition.Type.RECEIVER) {
            if (!definitions.stopped(name)) {
                boolean connected = running.receivers().isRunning(name);
                throw notStopped(name, connected ? "RUNNING" : "INACTIVE", "Receiver channel " + name + " is "
                        + (connected ? "RUNNING (its partner is connected)" : "INACTIVE (it accepts its partner, which"
                        + " is not connected now)") + ", not stopped: nothing to start. " + (connected ? "" : "Its"
                        + " sender connects when it has messages to send (on the sending queue manager, 'wharf admin"
                        + " display chstatus' shows it and 'wharf admin start channel " + name + "' starts it if an"
                        + " operator stopped it). ") + "To end the partner's session and let it in again, 'wharf admin"
                        + " stop channel " + name + "' then 'wharf admin start channel " + name + "'.");
            }
            definitions.start(name);
            return "Channel " + name + " started (its sender connects at its next retry)";
        }
        SenderChannel sender = running.sender(name);
        SenderChannel.State state = sender.state();
        if (state != SenderChannel.State.STOPPED) {
            throw notStopped(name, state.name(), "Channel " + name + " is " + state + ", not stopped: nothing to"
                    + " start. " + switch (state) {
                        case RETRYING -> "It tries its partner again by itself after its retry interval ('wharf"
                                + " admin display chstatus' says why it retries); to try at once, 'wharf admin stop"
                                + " channel " + name + "' then 'wharf admin start channel " + name + "'.";
                        case WAITING -> "It waits for messages on its transmission queue and sends them as they"
                                + " come; to connect again, 'wharf admin stop channel " + name + "' then 'wharf admin"
                                + " start channel " + name + "'.";
                        default -> "It sends its transmission queue's messages as they come; to restart it, 'wharf"
                                + " admin stop channel " + name + "' then 'wharf admin start channel " + name + "'.";
                    });
        }
        definitions.start(name);
        SenderChannel again = running.newSender(definitions.definition(name));
        running.replace(sender, again);
        again.start();
        return "Channel " + name + " started";
    }

    /**
     * The refusal to start channel {@code name}, which is in {@code state}: its reason {@code NOT_STOPPED} and its
     * {@code state} are fields of the answer for programs ({@code --json}).
     */
    private static AdminException notStopped(String name, String state, String message) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("channel", name);
        fields.put("state", state);
        return new AdminException(NOT_STOPPED, message, fields);
    }

    /** The reason of a refused start of a channel that is not stopped. */
    static final String NOT_STOPPED = "NOT_STOPPED";

    /**
     * Stops channel {@code name} until {@link #startChannel}, across restarts too. A sender: a batch under way is left
     * in doubt (resolved when it starts again), and the answer says so, naming each batch in doubt and how to resolve
     * it by hand (IBM MQ's STOP CHANNEL leaves such a channel INDOUBT); its transmission queue keeps what it has not
     * sent, and it does not start again on a new message. A receiver: its partner's session ends once the batches it
     * has ended are committed, and the partner is refused until then, retrying as its retry settings say.
     *
     * @return what the operator is told: the channel's {@code name}, {@code type} and, a sender's,
     *         {@code transmissionQueue}; the {@code batchesInDoubt} it leaves (as {@code display chstatus} shows them;
     *         empty for a receiver or when none); and the {@code description} for people
     */
    synchronized Map<String, Object> stopChannel(String name) {
        Map<String, Object> stopped = new LinkedHashMap<>();
        stopped.put("name", name);
        if (definitions.definition(name).type() == ChannelDefinition.Type.RECEIVER) {
            definitions.stop(name); // its partner's next open is refused
            running.receivers().endPartner(name);
            stopped.put("type", "receiver");
            stopped.put("batchesInDoubt", List.of());
            stopped.put("description", "Channel " + name + " stopped (its partner's session ends; the sender retries"
                    + " until it is started)");
            return stopped;
        }
        SenderChannel sender = running.sender(name);
        definitions.stop(name);
        sender.stop(); // waits for its thread to end: what it prepared and did not complete stays in doubt
        ChannelDefinition d = definitions.definition(name);
        String queue = d.transmissionQueue();
        List<ChannelStatus.BatchInDoubt> doubt = ChannelResolution.shown(
                running.host().management().preparedBranches(), name);
        stopped.put("type", "sender");
        stopped.put("transmissionQueue", queue);
        stopped.put("batchesInDoubt", doubt);
        if (!doubt.isEmpty()) {
            String answer = stoppedInDoubt(name, queue, doubt);
            LOG.log(System.Logger.Level.WARNING, answer + " (stopped by an operator)");
            stopped.put("description", answer);
            return stopped;
        }
        stopped.put("description", "Channel " + name + " stopped (" + (transmissionQueueExists(d) ? "its transmission"
                + " queue keeps what it has not sent" : "its transmission queue " + queue + " does not exist: define it"
                + " ('" + SenderChannel.defineQueueCommand(queue) + "') before you start the channel again") + ")");
        return stopped;
    }

    /**
     * What an operator who stopped sender {@code name} with {@code doubt} (oldest first) in doubt is told: each batch,
     * where its messages are, and how it is settled, by the channel or by hand.
     */
    private static String stoppedInDoubt(String name, String queue, List<ChannelStatus.BatchInDoubt> doubt) {
        String docs = " (docs/distributed.md, \"Resolving by hand\")";
        if (doubt.size() == 1) {
            ChannelStatus.BatchInDoubt b = doubt.get(0);
            return "Channel " + name + " stopped with " + b.describe() + " in doubt: its messages stay held on"
                    + " transmission queue " + queue + " until the channel starts again and settles the batch with its"
                    + " receiver; when the receiver cannot be asked, " + b.byHand(name, false) + docs;
        }
        List<String> each = new ArrayList<>();
        for (ChannelStatus.BatchInDoubt b : doubt) {
            each.add(b.byHand(name, true));
        }
        return "Channel " + name + " stopped with " + doubt.size() + " batches in doubt, "
                + ChannelStatus.BatchInDoubt.listed(doubt) + ": their messages stay held on transmission queue "
                + queue + " until the channel starts again and settles them with its receiver; when the receiver"
                + " cannot be asked, resolve each by the receiver's LAST BATCH, the oldest committed first, the"
                + " newest backed out first: " + String.join("; ", each) + docs;
    }

    /** Whether sender {@code d}'s transmission queue exists: a channel defined before its queue runs without one. */
    private boolean transmissionQueueExists(ChannelDefinition d) {
        return running.host().management().queueExists(d.transmissionQueue());
    }

    /**
     * Defines channel {@code name} with {@code attributes} (as config/wharf.yaml names them), kept across restarts; a
     * sender starts at once (it waits for a message on its transmission queue), a receiver accepts its partner.
     *
     * @throws IllegalArgumentException for a name taken or an attribute unknown or wrong, naming it and the fix
     */
    synchronized ChannelDefinition define(String name, Map<String, String> attributes) throws Exception {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("A channel needs a name, the same on both queue managers.");
        }
        if (definitions.exists(name)) {
            throw new IllegalArgumentException("Channel '" + name + "' exists already (" + definitions.origin(name)
                    + "): change it with 'alter channel " + name + "', or give the new channel another name.");
        }
        ChannelDefinition d = read(name, attributes, "define");
        checkTransmissionQueue(d, "defined");
        definitions.put(name, d);
        try {
            if (d.type() == ChannelDefinition.Type.SENDER) {
                SenderChannel sender = running.newSender(d);
                running.add(sender);
                sender.start();
            } else {
                running.receive(d);
            }
        } catch (Exception | Error e) {
            definitions.remove(name);
            throw e;
        }
        definitions.save();
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
    synchronized String alter(String name, Map<String, String> changes) throws Exception {
        ChannelDefinition current = definitions.definition(name);
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
        checkTransmissionQueue(altered, "altered");
        List<String> partner = partnerChanges(current, altered);
        String effect;
        if (altered.type() == ChannelDefinition.Type.SENDER) {
            SenderChannel sender = running.sender(name);
            SenderChannel.State state = sender.state();
            boolean idle = state == SenderChannel.State.STOPPED || state == SenderChannel.State.WAITING;
            if (!partner.isEmpty() && !idle) {
                throw new IllegalArgumentException("Channel '" + name + "' is " + state + ": its " + partner + " cannot"
                        + " change under it. Stop it first ('wharf admin stop channel " + name + "'), alter it, then"
                        + " start it.");
            }
            definitions.commit(name, altered);
            SenderChannel replacement = running.newSender(altered);
            if (state == SenderChannel.State.STOPPED) {
                replacement.stop(); // stays stopped, showing its new definition
                running.replace(sender, replacement);
                effect = "it stays stopped";
            } else if (state == SenderChannel.State.WAITING) {
                sender.stop(); // nothing under way: started again with the new definition
                running.replace(sender, replacement);
                replacement.start();
                effect = "it has started again with them";
            } else {
                effect = "they take effect when it next starts (it is " + state + ")";
            }
        } else {
            ChannelReceivers receivers = running.receivers();
            if (!partner.isEmpty() && receivers.isRunning(name)) {
                throw new IllegalArgumentException("Receiver channel '" + name + "' has a partner connected: its "
                        + partner + " cannot change under it. Stop the sender on the partner queue manager first, then"
                        + " alter it.");
            }
            definitions.commit(name, altered);
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
            if (ChannelAttributes.namesPartner(key, b.type())
                    && !java.util.Objects.equals(before.get(key), after.get(key))) {
                changed.add(key);
            }
        }
        return changed;
    }

    /**
     * Deletes channel {@code name}, defined at run time: a sender must be stopped, with no batch in doubt; a receiver
     * must have no partner connected. What a sender's transmission queue holds stays there.
     */
    synchronized String delete(String name) throws Exception {
        ChannelDefinition d = definitions.definition(name);
        if (definitions.configured(name)) {
            throw new IllegalArgumentException("Channel '" + name + "' is defined in the configuration (channels: in"
                    + " config/wharf.yaml): remove it there and restart the queue manager. 'delete channel' deletes"
                    + " the channels defined at run time.");
        }
        if (d.type() == ChannelDefinition.Type.SENDER) {
            SenderChannel sender = running.sender(name);
            if (sender.state() != SenderChannel.State.STOPPED) {
                throw new IllegalArgumentException("Channel '" + name + "' is not deleted: it is " + sender.state()
                        + (transmissionQueueExists(d) ? "" : " (its transmission queue " + d.transmissionQueue()
                        + " does not exist)") + ". Stop it first ('wharf admin stop channel " + name + "'), then delete"
                        + " it.");
            }
            List<PreparedBranch> doubt = ChannelResolution.inDoubt(
                    running.host().management().preparedBranches(), name);
            if (!doubt.isEmpty()) {
                boolean one = doubt.size() == 1;
                throw new IllegalArgumentException("Channel '" + name + "' has " + described(doubt) + " in doubt (its"
                        + " messages held on " + d.transmissionQueue() + "): resolve " + (one ? "it" : "each")
                        + " first ('wharf admin resolve channel " + name + (one ? "" : " --batch ID")
                        + " --action commit|backout'), then delete it.");
            }
            running.remove(sender);
        } else {
            ChannelReceivers receivers = running.receivers();
            if (receivers.isRunning(name)) {
                throw new IllegalArgumentException("Receiver channel '" + name + "' has a partner connected: stop the"
                        + " sender on the partner queue manager first, then delete it.");
            }
            receivers.delete(name);
        }
        definitions.delete(name);
        LOG.log(System.Logger.Level.INFO, "Channel " + name + " deleted");
        if (d.type() != ChannelDefinition.Type.SENDER) {
            return "Channel " + name + " deleted";
        }
        return "Channel " + name + " deleted (its transmission queue " + d.transmissionQueue()
                + (transmissionQueueExists(d) ? " keeps what it holds)" : " does not exist: nothing was waiting to be"
                + " sent)");
    }

    /**
     * Sets channel {@code name}'s sequence number (IBM MQ's RESET CHANNEL SEQNUM). On a receiver at once (refused
     * while a partner is connected); its sender takes it when it next starts. On a sender, whatever its state: kept
     * (across restarts too) until the sender next opens the channel, when its receiver takes it; the last batch id
     * stays on both, so a batch in doubt is resolved as before.
     */
    synchronized String reset(String name, long sequence) throws Exception {
        ChannelDefinition d = definitions.definition(name);
        if (sequence < 0) {
            throw new IllegalArgumentException("Channel '" + name + "': sequence must be 0 or more, not " + sequence
                    + ".");
        }
        if (d.type() == ChannelDefinition.Type.SENDER) {
            definitions.reset(name, sequence);
            SenderChannel.State state = running.sender(name).state();
            LOG.log(System.Logger.Level.INFO, "Channel " + name + ": sequence number reset to " + sequence + "; its"
                    + " receiver takes it at the channel's next start");
            return "Channel " + name + ": sequence number reset to " + sequence + "; its receiver on the partner"
                    + " queue manager takes it when the channel next starts (it is " + state + (state
                    == SenderChannel.State.RUNNING ? ": after this connection ends, or stop and start it" : "") + ")";
        }
        ChannelReceivers receivers = running.receivers();
        if (receivers.isRunning(name)) {
            throw new IllegalArgumentException("Receiver channel '" + name + "' has a partner connected: stop the"
                    + " sender on the partner queue manager first, then reset it.");
        }
        long before = receiverStatus(receivers, name).sequence();
        receivers.reset(name, sequence);
        LOG.log(System.Logger.Level.INFO, "Channel " + name + ": sequence number reset to " + sequence + " (was "
                + before + ")");
        return "Channel " + name + ": sequence number reset to " + sequence + " (was " + before + "); its sender"
                + " takes it when it next starts";
    }

    private static ChannelStatus receiverStatus(ChannelReceivers receivers, String name) {
        return receivers.status().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    /**
     * Completes one of stopped sender {@code name}'s batches in doubt by hand (IBM MQ's RESOLVE CHANNEL):
     * {@code commit} when the receiver has it (removed from the transmission queue for good), otherwise backed out (back on the
     * transmission queue, each message to its place, sent again when the channel starts). {@code batch} names it; null
     * names the only one, and is refused when there are several (with {@code pipelineLength} 2 a failure may leave
     * two, and the receiver may have the first and not the second). The receiver commits batches in order, so only the
     * oldest batch in doubt may be committed and only the newest backed out: what is committed stays the batches up to
     * the receiver's last, whatever order the operator goes in.
     */
    synchronized String resolve(String name, boolean commit, Long batch) throws Exception {
        ChannelDefinition d = definitions.definition(name);
        if (d.type() != ChannelDefinition.Type.SENDER) {
            throw new IllegalArgumentException("Channel '" + name + "' is a receiver: a batch is in doubt on its sender"
                    + " only. Resolve it on the partner queue manager.");
        }
        SenderChannel sender = running.sender(name);
        if (sender.state() != SenderChannel.State.STOPPED) {
            throw new IllegalArgumentException("Channel '" + name + "' is " + sender.state() + ": a channel that runs"
                    + " resolves its batches in doubt itself, with its receiver. Stop it first ('wharf admin stop"
                    + " channel " + name + "') to resolve them by hand.");
        }
        List<PreparedBranch> doubt = ChannelResolution.inDoubt(running.host().management().preparedBranches(), name);
        if (doubt.isEmpty()) {
            throw new IllegalArgumentException("Channel '" + name + "' has no batch in doubt: nothing to resolve.");
        }
        PreparedBranch branch = chosen(name, doubt, batch, commit);
        ChannelResolution.complete(running.host(), name, branch, commit);
        String line = "Channel " + name + ": " + ChannelResolution.shown(branch).describe() + " "
                + (commit ? "committed: its messages are removed from " + d.transmissionQueue()
                : "backed out: its messages are back on " + d.transmissionQueue() + ", sent again when the"
                + " channel starts");
        LOG.log(System.Logger.Level.WARNING, line + " (resolved by an operator)");
        List<PreparedBranch> left = new ArrayList<>(doubt);
        left.remove(branch);
        return left.isEmpty() ? line : line + "; still in doubt: " + described(left);
    }

    /**
     * The batch of {@code doubt} (oldest first, one at least) that {@code batch} names, as {@link #resolve} may
     * complete it with {@code commit}.
     *
     * @throws IllegalArgumentException naming the batches in doubt and the rule, when {@code batch} is null and there
     *                                  are several, names none of them, or is not the one the action may take
     */
    private static PreparedBranch chosen(String name, List<PreparedBranch> doubt, Long batch, boolean commit) {
        String command = "'wharf admin resolve channel " + name + " --batch ID --action commit|backout'";
        String rule = "Its receiver commits batches in order: by its LAST BATCH (display chstatus on the receiving"
                + " queue manager), commit every batch up to it, oldest first, and back out every later one, newest"
                + " first (" + command + ").";
        if (batch == null) {
            if (doubt.size() == 1) {
                return doubt.get(0);
            }
            throw new IllegalArgumentException("Channel '" + name + "' has " + doubt.size() + " batches in doubt, "
                    + described(doubt) + ", and each may need its own outcome: name one with --batch. " + rule);
        }
        PreparedBranch named = null;
        for (PreparedBranch b : doubt) {
            if (ChannelResolution.batch(b) == batch) {
                named = b;
            }
        }
        if (named == null) {
            throw new IllegalArgumentException("Channel '" + name + "' has no batch " + batch + " in doubt; in doubt: "
                    + described(doubt) + ".");
        }
        PreparedBranch oldest = doubt.get(0);
        PreparedBranch newest = doubt.get(doubt.size() - 1);
        if (commit && named != oldest) {
            long first = ChannelResolution.batch(oldest);
            throw new IllegalArgumentException("Channel '" + name + "': batch " + batch + " is not committed while"
                    + " batch " + first + " is in doubt: a receiver that has batch " + batch + " has batch " + first
                    + " too. Commit batch " + first + " first ('wharf admin resolve channel " + name + " --batch "
                    + first + " --action commit'). " + rule);
        }
        if (!commit && named != newest) {
            long last = ChannelResolution.batch(newest);
            throw new IllegalArgumentException("Channel '" + name + "': batch " + batch + " is not backed out while"
                    + " batch " + last + " is in doubt: a receiver that does not have batch " + batch + " does not have"
                    + " batch " + last + " either. Back out batch " + last + " first ('wharf admin resolve channel "
                    + name + " --batch " + last + " --action backout'). " + rule);
        }
        return named;
    }

    /** "batch 2 (10 messages, sequence numbers 2 to 11) and batch 3 (10 messages, sequence numbers 12 to 21)". */
    private static String described(List<PreparedBranch> batches) {
        return ChannelStatus.BatchInDoubt.listed(batches.stream().map(ChannelResolution::shown).toList());
    }

    /**
     * Refuses sender {@code d} when another channel in force is a sender of its transmission queue
     * ({@link ChannelSettings#checkOneSenderPerTransmissionQueue}).
     */
    private void checkTransmissionQueue(ChannelDefinition d, String done) {
        List<ChannelDefinition> all = new ArrayList<>();
        for (ChannelDefinition other : definitions.definitions()) {
            if (!other.name().equals(d.name())) {
                all.add(other);
            }
        }
        all.add(d);
        try {
            ChannelSettings.checkOneSenderPerTransmissionQueue(all);
        } catch (ConfigurationException e) {
            throw new IllegalArgumentException("Channel '" + d.name() + "' is not " + done + ": " + e.getMessage());
        }
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
}
