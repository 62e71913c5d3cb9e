package org.wharfmq.server.management;

import java.util.Map;
import java.util.Set;

/**
 * This instance's place in a replicated queue manager, as an administrator sees it ({@code display server}):
 * docs/resilience.md, "Replicated queue manager".
 *
 * @param group          the replication group (the queue manager's name in the member list)
 * @param member         this member's id
 * @param role           LEADER (the active instance), FOLLOWER (a replica), CANDIDATE (electing) or CLOSED
 * @param active         the id of the member this one knows as active, or null during an election
 * @param term           the Raft term (it rises with each election)
 * @param committedIndex the last log entry this member knows a majority has
 * @param appliedIndex   the last log entry applied here
 * @param inSync         members whose log holds every committed entry, as this member last heard (itself counting),
 *                       and that answer it ({@code unreachable} does not count)
 * @param backlogBytes   bytes this member appended and a majority has not yet confirmed (0 on a replica)
 * @param behind         entries each member is behind the committed index, as this member last heard (-1: no word
 *                       of it); on a replica, only its own
 * @param members        the group's members, id to replication address, as this member's log has them (changed at
 *                       run time by {@code define member} and {@code delete member})
 * @param lastContactMillis how long ago this member last heard from each member it tracks, in milliseconds: on the
 *                       active member, each replica's last answer; on a replica, the active member's last call
 * @param behindBytes    on the active member, the bytes each other member's log lacks of what this member committed
 *                       since it took over (0: in sync; at least this for one more than about 65,000 batches behind);
 *                       empty on a replica
 * @param journalBytes   this member's journal while a replica: bytes of records in its files (-1 once active: the
 *                       queue manager's journal is shown as on any queue manager)
 * @param journalFiles   the segments (files) of that journal, as {@code journalBytes} (-1 once active)
 * @param snapshotIndex  the log index of this member's latest snapshot (taken, built from its log, or installed), -1
 *                       when it has none
 * @param logStartIndex  the first index this member's Raft log still holds (above 0 once purged after a snapshot)
 * @param snapshotsInstalled snapshots the active member sent this member and it installed since it started (it was
 *                       behind the active member's purged log: new, wiped, or down for a while)
 * @param unreachable    on the active member, the members that have not answered it within the election timeout's
 *                       maximum (Raft's own measure of a member that answers): down, or cut off from it, whatever
 *                       {@code behind} last said of them ({@code lastContactMillis} says since when); empty on a
 *                       replica
 */
public record ReplicationState(String group, String member, String role, String active, long term,
                               long committedIndex, long appliedIndex, int inSync, long backlogBytes,
                               Map<String, Long> behind, Map<String, String> members,
                               Map<String, Long> lastContactMillis, Map<String, Long> behindBytes,
                               long journalBytes, int journalFiles, long snapshotIndex, long logStartIndex,
                               long snapshotsInstalled, Set<String> unreachable) {

    public ReplicationState {
        behind = Map.copyOf(behind);
        members = Map.copyOf(members);
        lastContactMillis = Map.copyOf(lastContactMillis);
        behindBytes = Map.copyOf(behindBytes);
        unreachable = Set.copyOf(unreachable);
    }
}
