package org.wharfmq.server.channels;

import org.wharfmq.server.ServerPlugin.Host;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The channels that run: the senders (each a {@link SenderChannel} thread taking its transmission queue inside the
 * queue manager) and the receivers ({@link ChannelReceivers}, the server's
 * {@link org.wharfmq.server.ChannelAcceptor}), started, replaced and stopped.
 *
 * <p>Owns the running channels: {@link ChannelsPlugin} starts and closes them, {@link ChannelAdmin} changes them, one
 * change at a time; they are readable from any thread.
 */
final class RunningChannels {
    private static final System.Logger LOG = System.getLogger(RunningChannels.class.getName());

    /** The senders, in definition order; a stopped one is replaced by a new one when started again. */
    private final List<SenderChannel> senders = new CopyOnWriteArrayList<>();
    private volatile ChannelReceivers receivers;
    private volatile Host host;
    /** The definitions: which receivers an operator stopped, the senders' resets. */
    private volatile ChannelDefinitions definitions;

    /** Starts the receivers of {@code definitions}, then its senders, but those an operator stopped. */
    void start(Host server, ChannelDefinitions definitions) throws Exception {
        host = server;
        this.definitions = definitions;
        List<ChannelDefinition> receiving = new ArrayList<>();
        for (ChannelDefinition d : definitions.definitions()) {
            if (d.type() == ChannelDefinition.Type.RECEIVER) {
                receiving.add(d);
                if (definitions.stopped(d.name())) {
                    LOG.log(System.Logger.Level.INFO, "Receiver channel " + d.name() + " stays stopped ('wharf admin"
                            + " start channel " + d.name() + "' starts it)");
                }
            }
        }
        if (!receiving.isEmpty()) {
            receivers(receiving);
        }
        for (ChannelDefinition d : definitions.definitions()) {
            if (d.type() == ChannelDefinition.Type.SENDER) {
                SenderChannel sender = newSender(d);
                senders.add(sender);
                if (definitions.stopped(d.name())) {
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
            ChannelReceivers started = new ChannelReceivers(first, host, definitions::stopped);
            started.start();
            host.acceptChannels(started);
            receivers = started;
        }
        return receivers;
    }

    /** Receives receiver {@code d}'s partner: starts the receivers with it, or adds it to those that run. */
    void receive(ChannelDefinition d) throws Exception {
        if (receivers == null) {
            receivers(List.of(d));
        } else {
            receivers.define(d);
        }
    }

    /** The receivers; null while no receiver is defined. */
    ChannelReceivers receivers() {
        return receivers;
    }

    /** The queue manager the channels run in. */
    Host host() {
        return host;
    }

    /** A sender for {@code d}, not started. */
    SenderChannel newSender(ChannelDefinition d) {
        return new SenderChannel(d, host, host.config().name(), definitions.resets());
    }

    /** The senders, in definition order (a snapshot as it is iterated). */
    List<SenderChannel> senders() {
        return Collections.unmodifiableList(senders);
    }

    /** Adds {@code sender}, after the others. */
    void add(SenderChannel sender) {
        senders.add(sender);
    }

    /** Puts {@code replacement} in {@code sender}'s place. */
    void replace(SenderChannel sender, SenderChannel replacement) {
        senders.set(senders.indexOf(sender), replacement);
    }

    /** Removes {@code sender}, stopped. */
    void remove(SenderChannel sender) {
        senders.remove(sender);
    }

    SenderChannel sender(String name) {
        for (SenderChannel s : senders) {
            if (s.definition().name().equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("No sender channel named '" + name + "' is defined (its senders: "
                + senders.stream().map(s -> s.definition().name()).toList() + ").");
    }

    /** How many messages sender {@code name} has had confirmed by its partner since it started. */
    long messagesSent(String name) {
        return sender(name).messagesSent();
    }

    /** The test hooks of sender {@code name} ({@link ChannelsPlugin#hooks}). */
    void hooks(String name, Runnable afterPrepare, Runnable afterConfirm) {
        for (SenderChannel s : senders) {
            if (s.definition().name().equals(name)) {
                s.hooks(afterPrepare, afterConfirm);
            }
        }
    }

    /** Stops the senders, then the receivers. */
    void close() {
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
