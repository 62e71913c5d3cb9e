package org.wharfmq.server.channels;

import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.WireXid;
import org.wharfmq.server.session.XaBranches.PreparedBranch;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * A sender's batches in doubt, as the queue manager's prepared XA branches show them (format id
 * {@link SenderChannel#XID_FORMAT}, global id {@code WHARF.CHANNEL/<channel>}, branch qualifier the batch's id), and
 * their completion by an operator ({@code wharf admin resolve channel}, IBM MQ's RESOLVE CHANNEL): commit when the
 * receiver has the batch (its removal from the transmission queue becomes final), back out when it has not (its
 * messages go back on the transmission queue, first, and are sent again).
 */
final class ChannelResolution {

    private ChannelResolution() {
    }

    /** Channel {@code channel}'s batches in doubt among {@code branches}. */
    static List<PreparedBranch> inDoubt(List<PreparedBranch> branches, String channel) {
        String gtrid = HexFormat.of().formatHex((SenderChannel.XID_PREFIX + channel).getBytes(StandardCharsets.UTF_8));
        List<PreparedBranch> ours = new ArrayList<>();
        for (PreparedBranch b : branches) {
            if (b.formatId() == SenderChannel.XID_FORMAT && b.globalTransactionId().equalsIgnoreCase(gtrid)) {
                ours.add(b);
            }
        }
        return ours;
    }

    /** The batch id of a channel's branch. */
    static long batch(PreparedBranch branch) {
        return Long.parseLong(new String(HexFormat.of().parseHex(branch.branchQualifier()), StandardCharsets.UTF_8));
    }

    /**
     * Commits or rolls back {@code branch} of {@code channel} on the queue manager at {@code vmUrl}, as the queue
     * manager itself (in-VM, anonymous: the one client that may complete any branch).
     */
    static void complete(String vmUrl, String channel, PreparedBranch branch, boolean commit) throws Exception {
        WireXid xid = new WireXid(SenderChannel.XID_FORMAT,
                (SenderChannel.XID_PREFIX + channel).getBytes(StandardCharsets.UTF_8),
                HexFormat.of().parseHex(branch.branchQualifier()));
        int timeout = ChannelConfiguration.CONNECT_TIMEOUT_MILLIS.defaultValue();
        try (CoreLink link = CoreLink.open(vmUrl, Map.of(), null, null, "resolve channel " + channel, 0, timeout)) {
            link.call(id -> commit ? new Frame.XaCommit(id, xid, false) : new Frame.XaRollback(id, xid), timeout);
        }
    }
}
