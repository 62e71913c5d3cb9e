package org.wharfmq.server.channels;

import org.wharfmq.server.ServerPlugin;

import java.util.List;

/**
 * Channels between queue managers (docs/distributed.md): a plugin of the broker that runs the sender channels and
 * receives the partners' sender channels on the queue manager's listeners ({@link RunningChannels}).
 *
 * <p>Its channels are those of {@code channels:} in config/wharf.yaml, and those defined or altered at run time
 * ({@link ChannelAdmin}, through its {@link #adminCommands}), which win over the configuration's of the same name
 * ({@link ChannelDefinitions}); their status is readable from any thread ({@link ChannelStatusView}). The plugin puts
 * these together, starts and closes them.
 */
public final class ChannelsPlugin implements ServerPlugin {

    private final ChannelSettings settings;
    private final ChannelDefinitions definitions = new ChannelDefinitions();
    private final RunningChannels running = new RunningChannels();
    private final ChannelStatusView status = new ChannelStatusView(running, definitions);
    private final ChannelAdmin admin = new ChannelAdmin(definitions, running);

    public ChannelsPlugin(ChannelSettings settings) {
        this.settings = settings;
    }

    @Override
    public void start(Host server) throws Exception {
        // on ChannelAdmin's lock, as its changes: an admin command that comes early waits for the channels
        synchronized (admin) {
            definitions.load(settings, server.config().dataDirectory());
            running.start(server, definitions);
        }
    }

    /** The admin commands of the channels ({@code wharf admin define|display channel ...}): give them to the AdminPlugin. */
    public ChannelCommands adminCommands() {
        return new ChannelCommands(admin, definitions, status);
    }

    /** Every channel's status: the senders, then the receivers, each in definition order. */
    public List<ChannelStatus> status() {
        return status.status();
    }

    /** How many messages sender {@code name} has had confirmed by its partner since it started. */
    public long messagesSent(String name) {
        return running.messagesSent(name);
    }

    /**
     * How many messages sender {@code name} sent outside the batches from the threads that put them: as its
     * transmission queue delivered them, or past it.
     */
    long messagesSentByTheirPutters(String name) {
        SenderChannel sender = running.sender(name);
        return sender.messagesSentAsDelivered() + sender.messagesHandedOver();
    }

    /** How many messages sender {@code name} sent past its transmission queue, from the threads that put them. */
    long messagesHandedOver(String name) {
        return running.sender(name).messagesHandedOver();
    }

    /**
     * Whether a partner's session runs receiver {@code name} now: a receiver an operator stopped shows STOPPED while it
     * may still be ending that session (once the batches it ended are committed).
     */
    boolean receiverRunning(String name) {
        return running.receivers().isRunning(name);
    }

    /**
     * Test hooks, run on sender {@code name}'s thread: {@code afterPrepare} once a batch's removal from the
     * transmission queue is prepared, before the batch ends on the partner; {@code afterConfirm} after the partner has
     * committed the batch, before the removal commits. One that throws leaves the batch in doubt, as a crash of the
     * sending queue manager at that moment does.
     */
    void hooks(String name, Runnable afterPrepare, Runnable afterConfirm) {
        running.hooks(name, afterPrepare, afterConfirm);
    }

    @Override
    public void close() {
        running.close();
    }
}
