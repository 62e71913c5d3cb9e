package org.wharfmq.server.replication;

import java.util.Map;

/**
 * One member's view of the replication, for operators: {@link ReplicationMember#state} turns it into what
 * {@code display server} and the metrics show.
 *
 * @param member         this member's id
 * @param role           LEADER (the active instance), FOLLOWER (a replica), CANDIDATE (electing) or CLOSED (stopped,
 *                       or stopped itself because its sink could not apply a batch)
 * @param active         the id of the member this one knows as active, or null during an election
 * @param term           the Raft term this member is in (it rises with each election)
 * @param committedIndex the last log index this member knows is committed by a majority
 * @param appliedIndex   the last log index applied here
 * @param committed      each member's last committed index, as this member last heard it (on the active member: every
 *                       member's, from their answers; on a replica: its own)
 */
public record ReplicationStatus(String member, String role, String active, long term, long committedIndex,
                                long appliedIndex, Map<String, Long> committed) {

    public ReplicationStatus {
        committed = Map.copyOf(committed);
    }

    /**
     * How many log entries member {@code id} is behind this one's committed index, as this member last heard (0: in
     * step); -1 when this member has not heard of it.
     */
    public long behind(String id) {
        Long theirs = committed.get(id);
        return theirs == null ? -1 : Math.max(0, committedIndex - theirs);
    }
}
