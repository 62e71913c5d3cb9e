package org.wharfmq.server.channels;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.ChannelAcceptor;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.security.AuditLog;
import org.wharfmq.server.security.Identity;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The receiver channels of a queue manager: the {@link ChannelAcceptor} its listeners hand CHANNEL_OPEN to, which
 * checks the partner ({@link PartnerBinding}; a refusal is audited, a receiver bound to no partner identity warned of
 * once) and gives the channel to its {@link ChannelReceiver} (each with a thread and an in-VM connection
 * of its own, so that ten channels from one partner commit side by side). Receivers defined, altered or deleted at run
 * time ({@link ChannelAdmin}, one change at a time) get, change or lose their ChannelReceiver here.
 */
final class ChannelReceivers implements ChannelAcceptor, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ChannelReceivers.class.getName());

    /** The receivers by channel name, in definition order: replaced whole when one is defined or deleted. */
    private volatile Map<String, ChannelReceiver> receivers;
    private final ServerPlugin.Host host;
    private final ReceiverPuts puts;
    /** Whether an operator stopped a receiver: it refuses its partner ({@link ChannelDefinitions} owns that). */
    private final Predicate<String> stopped;
    /** Held by a partner's open and an operator's stop, so that a stop ends the session an open before it began. */
    private final Object opening = new Object();

    ChannelReceivers(List<ChannelDefinition> definitions, ServerPlugin.Host host, Predicate<String> stopped) {
        this.host = host;
        this.stopped = stopped;
        this.puts = new ReceiverPuts(host);
        Map<String, ChannelReceiver> all = new LinkedHashMap<>();
        for (ChannelDefinition d : definitions) {
            all.put(d.name(), new ChannelReceiver(d, host, puts));
        }
        receivers = Collections.unmodifiableMap(all);
    }

    /** Connects each receiver in-VM and reads its sync record. */
    void start() throws Exception {
        // each commit takes the channel's last record by a selector among those waiting in memory: never paged, and
        // what recovery paged (the budget past three quarters) read back before a receiver starts
        host.management().systemQueueInMemory(ChannelConfiguration.SYNC_QUEUE);
        host.management().systemQueue(SystemQueues.DEAD_LETTER_QUEUE); // where refused messages go, autoCreate or not
        for (ChannelReceiver receiver : receivers.values()) {
            receiver.start();
        }
    }

    @Override
    public Inbound open(Peer peer, int requestId, String channel, String queueManager, boolean fastNonPersistent,
                        long resetSequence) {
        Map<String, ChannelReceiver> all = receivers;
        ChannelReceiver receiver = all.get(channel);
        if (receiver == null) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Queue manager " + host.config().name()
                    + " has no receiver channel '" + channel + "' (its receivers: " + all.keySet() + "). Define"
                    + " it under channels: in config/wharf.yaml with type: receiver, or with 'wharf admin define channel "
                    + channel + " --type receiver' (docs/distributed.md).");
        }
        ChannelDefinition definition = receiver.definition();
        Identity who = peer.identity();
        try {
            PartnerBinding.check(definition, peer, queueManager, host.config().name());
        } catch (WharfException refused) {
            AuditLog.refused(who, peer.remoteAddress(), "CHANNEL_OPEN: " + refused.getMessage());
            throw refused;
        }
        if (resetSequence < 0 && resetSequence != Frame.ChannelOpen.NO_RESET) {
            throw new WharfException(ErrorCode.ILLEGAL_STATE, "Receiver channel '" + channel + "' of queue manager "
                    + host.config().name() + " refused the sequence number " + resetSequence + " its sender was reset"
                    + " to: a sequence number is 0 or more. Reset the sender again ('wharf admin reset channel "
                    + channel + " --sequence N' on queue manager " + queueManager + ").");
        }
        // IBM MQ's NPMSPEED: FAST only when both ends say so; either end's NORMAL wins
        boolean fast = fastNonPersistent
                && definition.nonPersistentSpeed() == ChannelDefinition.NonPersistentSpeed.FAST;
        Inbound inbound;
        synchronized (opening) { // a stop after this open ends the session it opens
            if (stopped.test(channel)) {
                throw new WharfException(ErrorCode.ILLEGAL_STATE, "Receiver channel '" + channel + "' of queue manager "
                        + host.config().name() + " is stopped by an operator: its sender retries until it is started"
                        + " ('wharf admin start channel " + channel + "' on " + host.config().name() + ").");
            }
            inbound = receiver.open(peer, requestId, definition, fast, resetSequence);
        }
        if (!PartnerBinding.boundToIdentity(definition) && receiver.firstUnboundOpen()) {
            LOG.log(System.Logger.Level.WARNING, PartnerBinding.unboundWarning(definition, peer, queueManager,
                    host.config().name()));
        }
        LOG.log(System.Logger.Level.INFO, "Channel " + channel + " from queue manager " + queueManager + " ("
                + who.describe() + " at " + peer.remoteAddress() + ") is running (nonPersistentSpeed "
                + (fast ? "fast" : "normal") + ")");
        return inbound;
    }

    /** What {@code wharf admin display chstatus} shows of the receivers. Any thread. */
    List<ChannelStatus> status() {
        List<ChannelStatus> all = new ArrayList<>();
        for (ChannelReceiver receiver : receivers.values()) {
            all.add(receiver.status());
        }
        return all;
    }

    /**
     * Ends the session of receiver {@code channel}'s partner, an operator having stopped the channel (IBM MQ's STOP
     * CHANNEL on a receiver; {@link ChannelDefinitions} refuses its partner's next open): once the batches it has ended
     * are committed and answered. Its sender retries as its retry settings say, until the channel is started again.
     */
    void endPartner(String channel) {
        ChannelReceiver receiver = receiver(channel);
        synchronized (opening) {
            receiver.endPartner("Receiver channel '" + channel + "' of queue manager " + host.config().name()
                    + " was stopped by an operator; the sender retries until it is started again.");
        }
    }

    // ---- run-time definitions (ChannelAdmin's, one change at a time) ----

    /** Whether a partner runs receiver {@code channel} now. Any thread. */
    boolean isRunning(String channel) {
        ChannelReceiver receiver = receivers.get(channel);
        return receiver != null && receiver.isRunning();
    }

    /** Adds receiver {@code d} (a new name): connected and its sync record read before it accepts a partner. */
    void define(ChannelDefinition d) throws Exception {
        ChannelReceiver receiver = new ChannelReceiver(d, host, puts);
        try {
            receiver.start();
        } catch (Exception | Error e) {
            receiver.close();
            throw e;
        }
        Map<String, ChannelReceiver> all = new LinkedHashMap<>(receivers);
        all.put(d.name(), receiver);
        receivers = Collections.unmodifiableMap(all);
    }

    /**
     * Replaces receiver {@code d}'s definition (the same name): the next partner to open it meets the new one. Its
     * ChannelReceiver stays (its thread, its counts, the non-persistent messages it has put FAST).
     */
    void alter(ChannelDefinition d) {
        receiver(d.name()).alter(d);
    }

    /**
     * Removes receiver {@code channel}, not running (the caller checked): a partner opening it is refused from now on.
     * Its sync record stays on {@link ChannelConfiguration#SYNC_QUEUE}: defined again, it goes on from its numbers.
     */
    void delete(String channel) throws Exception {
        ChannelReceiver receiver = receiver(channel);
        Map<String, ChannelReceiver> all = new LinkedHashMap<>(receivers);
        all.remove(channel);
        receivers = Collections.unmodifiableMap(all);
        receiver.delete();
    }

    /**
     * Sets receiver {@code channel}'s sequence number to {@code sequence} (IBM MQ's RESET CHANNEL SEQNUM), in its sync
     * record, on the receiver's thread. The caller checked that no partner runs it.
     */
    void reset(String channel, long sequence) throws Exception {
        receiver(channel).reset(sequence);
    }

    private ChannelReceiver receiver(String channel) {
        ChannelReceiver receiver = receivers.get(channel);
        if (receiver == null) {
            throw new IllegalArgumentException("No receiver channel named '" + channel + "' runs on queue manager "
                    + host.config().name() + " (its receivers: " + receivers.keySet() + ").");
        }
        return receiver;
    }

    @Override
    public void close() {
        for (ChannelReceiver receiver : receivers.values()) {
            receiver.close();
        }
    }
}
