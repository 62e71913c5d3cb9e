package org.wharfmq.server.channels;

import org.wharfmq.server.ServerPlugin;

import java.util.ArrayList;
import java.util.List;

/**
 * Channels between queue managers (docs/distributed.md): a plugin of the broker that runs the sender channels of
 * {@code channels:} (each a {@link SenderChannel} thread reading its transmission queue over the in-VM listener) and
 * receives the partners' sender channels on the queue manager's listeners ({@link ChannelReceivers}, the server's
 * {@link org.wharfmq.server.ChannelAcceptor}).
 */
public final class ChannelsPlugin implements ServerPlugin {
    private final ChannelSettings settings;
    /** The senders, in definition order; a stopped one is replaced by a new one when started again. */
    private final List<SenderChannel> senders = new java.util.concurrent.CopyOnWriteArrayList<>();
    private ChannelReceivers receivers;
    private Host host;

    public ChannelsPlugin(ChannelSettings settings) {
        this.settings = settings;
    }

    @Override
    public void start(Host server) throws Exception {
        host = server;
        List<ChannelDefinition> receiving = new ArrayList<>();
        for (ChannelDefinition d : settings.channels()) {
            if (d.type() == ChannelDefinition.Type.RECEIVER) {
                receiving.add(d);
            }
        }
        if (!receiving.isEmpty()) {
            receivers = new ChannelReceivers(receiving, server);
            receivers.start();
            server.acceptChannels(receivers);
        }
        for (ChannelDefinition d : settings.channels()) {
            if (d.type() == ChannelDefinition.Type.SENDER) {
                SenderChannel sender = new SenderChannel(d, server.vmUrl(), server.config().name());
                senders.add(sender);
                sender.start();
            }
        }
    }

    /** The admin commands of the channels ({@code wharf admin display chstatus}, start, stop): give them to the AdminPlugin. */
    public ChannelCommands adminCommands() {
        return new ChannelCommands(this);
    }

    /** Every channel's status: the senders, then the receivers, each in definition order. */
    public List<ChannelStatus> status() {
        List<ChannelStatus> all = new ArrayList<>();
        for (SenderChannel s : senders) {
            all.add(s.status());
        }
        if (receivers != null) {
            all.addAll(receivers.status());
        }
        return all;
    }

    /** Starts sender {@code name} again after {@link #stopSender}; refused when it runs. */
    public synchronized void startSender(String name) {
        SenderChannel sender = sender(name);
        if (sender.state() != SenderChannel.State.STOPPED) {
            throw new IllegalArgumentException("Channel " + name + " is not stopped (it is " + sender.state() + ").");
        }
        SenderChannel again = new SenderChannel(sender.definition(), host.vmUrl(), host.config().name());
        senders.set(senders.indexOf(sender), again);
        again.start();
    }

    /**
     * Stops sender {@code name}: a batch under way is left in doubt (resolved when it starts again); its transmission
     * queue keeps what it has not sent, and it does not start again on a new message until {@link #startSender}.
     */
    public synchronized void stopSender(String name) {
        sender(name).stop();
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
        if (host != null && receivers != null) {
            host.acceptChannels(null);
        }
        if (receivers != null) {
            receivers.close();
        }
    }
}
