package org.wharfmq.server.channels;

import org.wharfmq.server.session.XaBranches.PreparedBranch;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@code display chstatus}, the metrics and the console show of the running channels: each one's
 * {@link ChannelStatus}, a sender's with its transmission queue's depth and its batches in doubt, a
 * channel an operator stopped saying so ({@link ChannelDefinitions}). Holds no state of its own; any thread.
 */
final class ChannelStatusView {

    private final RunningChannels running;
    private final ChannelDefinitions definitions;

    ChannelStatusView(RunningChannels running, ChannelDefinitions definitions) {
        this.running = running;
        this.definitions = definitions;
    }

    /** Every channel's status: the senders, then the receivers, each in definition order. */
    List<ChannelStatus> status() {
        List<SenderChannel> senders = running.senders();
        List<ChannelStatus> all = new ArrayList<>();
        List<PreparedBranch> branches = senders.isEmpty() ? List.of() : running.host().management().preparedBranches();
        for (SenderChannel s : senders) {
            String queue = s.definition().transmissionQueue();
            Long depth;
            try {
                depth = running.host().management().queue(queue).depth();
            } catch (RuntimeException missing) {
                depth = null; // the transmission queue is not defined (the channel retries, saying so)
            }
            all.add(shown(s.status().with(depth, ChannelResolution.shown(branches, s.definition().name()))));
        }
        ChannelReceivers r = running.receivers();
        if (r != null) {
            for (ChannelStatus receiver : r.status()) {
                all.add(shown(receiver));
            }
        }
        return all;
    }

    /** {@code status} as shown: stopped by an operator when one stopped it (a receiver may still be ending a session). */
    private ChannelStatus shown(ChannelStatus status) {
        return definitions.stopped(status.name()) ? status.stoppedByOperator() : status;
    }
}
