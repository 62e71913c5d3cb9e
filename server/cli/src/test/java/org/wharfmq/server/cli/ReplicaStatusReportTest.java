package org.wharfmq.server.cli;

import org.junit.jupiter.api.Test;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.management.ReplicationState;
import org.wharfmq.server.replication.Member;
import org.wharfmq.server.replication.Membership;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Where a replica's HTTP listener sends a browser that opens the console there (its 503): the active member's HTTP
 * listener when the members' list gives it ({@code httpUrl}), else that it is not known here, never the active
 * member's replication address as if it were where the console is. (ReplicatedMembersTest opens a replica's console
 * address with three member processes.)
 */
class ReplicaStatusReportTest {

    @Test
    void theActiveMembersHttpListenerWhenTheMembersListGivesItElseThatItIsNotKnownHere() {
        Membership listed = new Membership("WHARF", List.of(
                new Member("a", "mq1", 7420, Path.of("/srv/wharf/a"), "https://mq1:7480"),
                new Member("b", "mq2", 7420, Path.of("/srv/wharf/b"), "https://mq2:7480"),
                new Member("c", "mq3", 7420, Path.of("/srv/wharf/c"))));

        assertEquals("Member c (FOLLOWER) follows the active member b: open the console at its HTTP listener, "
                + "https://mq2:7480/.", report(listed, "b").activeConsole());
        assertEquals("Member c (FOLLOWER) follows the active member a: open the console at its HTTP listener, "
                + "https://mq1:7480/.", report(listed, "a").activeConsole());

        Membership unlisted = new Membership("WHARF", List.of(new Member("a", "mq1", 7420, Path.of("/srv/wharf/a")),
                new Member("b", "mq2", 7420, Path.of("/srv/wharf/b")),
                new Member("c", "mq3", 7420, Path.of("/srv/wharf/c"))));
        assertEquals("Member c (FOLLOWER) follows the active member b, whose HTTP address this member's configuration "
                + "does not give (httpUrl of member b in replication.members; its replication address, mq2:7420, is "
                + "not it): 'wharf admin --url CLIENT_ADDRESSES display server' with every member's client address "
                + "names the active member's HTTP listener.", report(unlisted, "b").activeConsole());
        assertEquals("Member c (FOLLOWER) knows of no active member now (an election is under way): ask again in a few"
                + " seconds.", report(listed, null).activeConsole());
    }

    /** Member c's report, following {@code active} (null: none, an election). */
    private static ReplicaStatusReport report(Membership configured, String active) {
        ReplicationState state = new ReplicationState("WHARF", "c", "FOLLOWER", active, 3, 9120, 9120, 3, 0,
                Map.of("c", 0L), Map.of("a", "mq1:7420", "b", "mq2:7420", "c", "mq3:7420"), Map.of(), Map.of(), 0, 1,
                -1, 0, 0, Set.of());
        return new ReplicaStatusReport(ServerConfig.defaults(), configured, () -> state);
    }
}
