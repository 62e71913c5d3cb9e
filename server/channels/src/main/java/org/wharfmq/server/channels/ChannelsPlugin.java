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
    private final List<SenderChannel> senders = new ArrayList<>();
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

    /** The sender channel {@code name}'s state (RUNNING, RETRYING, ...); null for no such sender. */
    public String senderStatus(String name) {
        for (SenderChannel s : senders) {
            if (s.definition().name().equals(name)) {
                return s.status().name();
            }
        }
        return null;
    }

    /** How many messages sender {@code name} has had confirmed by its partner since the start; -1 for no such sender. */
    public long messagesSent(String name) {
        for (SenderChannel s : senders) {
            if (s.definition().name().equals(name)) {
                return s.messagesSent();
            }
        }
        return -1;
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
