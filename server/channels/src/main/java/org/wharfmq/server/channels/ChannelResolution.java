package org.wharfmq.server.channels;

import org.wharfmq.protocol.frame.WireXid;
import org.wharfmq.server.ServerPlugin.Host;
import org.wharfmq.server.session.InProcessTakes;
import org.wharfmq.server.session.XaBranches.PreparedBranch;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;

/**
 * A sender's batches in doubt, as the queue manager's prepared XA branches show them (format id
 * {@link SenderChannel#XID_FORMAT}, global id {@code WHARF.CHANNEL/<channel>}, branch qualifier the batch's id and
 * the sequence numbers of its first and last messages, {@code <batch>/<first>-<last>}; a branch prepared by an older
 * version names the batch alone), and their completion by an operator ({@code wharf admin resolve channel}, IBM MQ's RESOLVE
 * CHANNEL): commit when the receiver has the batch (its removal from the transmission queue becomes final), back out
 * when it has not (its messages go back on the transmission queue, each to its place, and are sent again).
 */
final class ChannelResolution {

    private ChannelResolution() {
    }

    /** The branch qualifier of batch {@code batch}, its messages' sequence numbers {@code first} to {@code last}. */
    static byte[] qualifier(long batch, long first, long last) {
        return (batch + "/" + first + "-" + last).getBytes(StandardCharsets.UTF_8);
    }

    /** The batch id a branch {@link #qualifier} names. */
    static long batchOf(byte[] qualifier) {
        String text = new String(qualifier, StandardCharsets.UTF_8);
        int slash = text.indexOf('/');
        return Long.parseLong(slash < 0 ? text : text.substring(0, slash));
    }

    /**
     * The sequence numbers of the first and last messages of the batch a {@link #qualifier} names; null when it names
     * none (an older version's).
     */
    private static long[] sequencesOf(byte[] qualifier) {
        String text = new String(qualifier, StandardCharsets.UTF_8);
        int slash = text.indexOf('/');
        int dash = text.indexOf('-', slash + 1);
        return slash < 0 || dash < 0 ? null : new long[] {Long.parseLong(text.substring(slash + 1, dash)),
                Long.parseLong(text.substring(dash + 1))};
    }

    /** Channel {@code channel}'s batches in doubt among {@code branches}, oldest (lowest batch id) first. */
    static List<PreparedBranch> inDoubt(List<PreparedBranch> branches, String channel) {
        String gtrid = HexFormat.of().formatHex((SenderChannel.XID_PREFIX + channel).getBytes(StandardCharsets.UTF_8));
        List<PreparedBranch> ours = new ArrayList<>();
        for (PreparedBranch b : branches) {
            if (b.formatId() == SenderChannel.XID_FORMAT && b.globalTransactionId().equalsIgnoreCase(gtrid)) {
                ours.add(b);
            }
        }
        ours.sort(Comparator.comparingLong(ChannelResolution::batch));
        return ours;
    }

    /** The batch id of a channel's branch. */
    static long batch(PreparedBranch branch) {
        return batchOf(HexFormat.of().parseHex(branch.branchQualifier()));
    }

    /** A channel's branch as operators see it: its batch, the sequence numbers of its messages. */
    static ChannelStatus.BatchInDoubt shown(PreparedBranch branch) {
        long[] sequences = sequencesOf(HexFormat.of().parseHex(branch.branchQualifier()));
        return new ChannelStatus.BatchInDoubt(batch(branch), sequences == null ? null : sequences[0],
                sequences == null ? null : sequences[1], branch.consumed());
    }

    /** Channel {@code channel}'s batches in doubt among {@code branches}, as operators see them, oldest first. */
    static List<ChannelStatus.BatchInDoubt> shown(List<PreparedBranch> branches, String channel) {
        List<ChannelStatus.BatchInDoubt> shown = new ArrayList<>();
        for (PreparedBranch b : inDoubt(branches, channel)) {
            shown.add(shown(b));
        }
        return shown;
    }

    /**
     * Commits or rolls back {@code branch} of {@code channel} inside queue manager {@code host}, as the queue manager
     * itself (whose branches the sender's are), as the sender does it.
     */
    static void complete(Host host, String channel, PreparedBranch branch, boolean commit) throws Exception {
        WireXid xid = new WireXid(SenderChannel.XID_FORMAT,
                (SenderChannel.XID_PREFIX + channel).getBytes(StandardCharsets.UTF_8),
                HexFormat.of().parseHex(branch.branchQualifier()));
        long timeout = ChannelConfiguration.ANSWER_TIMEOUT_MILLIS;
        try (InProcessTakes queueManager = host.takeMessages()) {
            if (commit) {
                queueManager.commit(xid, timeout);
            } else {
                queueManager.rollback(xid, timeout);
            }
        }
    }
}
