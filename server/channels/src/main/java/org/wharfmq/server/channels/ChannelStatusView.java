package org.wharfmq.server.channels;

import org.wharfmq.server.session.XaBranches.PreparedBranch;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@code display chstatus}, the metrics and the console show of the running channels: each one's
 * {@link ChannelStatus}, a sender's with its transmission queue's depth and whether a batch of it is in doubt. Holds no
 * state of its own; any thread.
 */
final class ChannelStatusView {

    private final RunningChannels running;

    ChannelStatusView(RunningChannels running) {
        this.running = running;
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
            all.add(s.status().with(depth, !ChannelResolution.inDoubt(branches, s.definition().name()).isEmpty()));
        }
        ChannelReceivers r = running.receivers();
        if (r != null) {
            all.addAll(r.status());
        }
        return all;
    }
}
