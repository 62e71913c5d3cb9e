package org.wharfmq.server.replication;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code replication:} description: three members, each its own id, address and data directory. */
class MembershipTest {

    private static Map<String, Object> member(String id, String address, String dir) {
        return Map.of("id", id, "address", address, "dataDirectory", dir);
    }

    @Test
    void readsThreeMembers() {
        Membership m = Membership.parse(Map.of("group", "WHARF", "members", List.of(
                member("a", "mq1:7420", "/srv/a"), member("b", "mq2:7420", "/srv/b"), member("c", "mq3:7421", "/srv/c"))));
        assertEquals("WHARF", m.group());
        assertEquals(new Member("c", "mq3", 7421, Path.of("/srv/c")), m.member("c"));
        assertEquals(Path.of("/srv/b/replication"), m.member("b").replicationDirectory());
        assertEquals(Membership.parse(Map.of("group", "WHARF", "members", List.of(member("a", "x:1", "/a"),
                member("b", "x:2", "/b"), member("c", "x:3", "/c")))).groupUuid(),
                Membership.parse(Map.of("group", "WHARF", "members", List.of(member("a", "y:1", "/a"),
                        member("b", "y:2", "/b"), member("c", "y:3", "/c")))).groupUuid(),
                "the group's id depends on its name only, so every member derives the same");
    }

    @Test
    void refusesWhatCannotMakeAGroupNamingTheFix() {
        refused("needs exactly 3", Map.of("group", "G", "members", List.of(member("a", "h:1", "/a"),
                member("b", "h:2", "/b"))));
        refused("names member 'a' twice", Map.of("group", "G", "members", List.of(member("a", "h:1", "/a"),
                member("a", "h:2", "/b"), member("c", "h:3", "/c"))));
        refused("share the data directory", Map.of("group", "G", "members", List.of(member("a", "h:1", "/a"),
                member("b", "h:2", "/a/"), member("c", "h:3", "/c"))));
        refused("share the address", Map.of("group", "G", "members", List.of(member("a", "h:1", "/a"),
                member("b", "h:1", "/b"), member("c", "h:3", "/c"))));
        refused("give it as host:port", Map.of("group", "G", "members", List.of(member("a", "h", "/a"),
                member("b", "h:2", "/b"), member("c", "h:3", "/c"))));
        refused("has no 'dataDirectory'", Map.of("group", "G", "members", List.of(Map.of("id", "a", "address", "h:1"),
                member("b", "h:2", "/b"), member("c", "h:3", "/c"))));
        refused("names no group", Map.of("members", List.of(member("a", "h:1", "/a"), member("b", "h:2", "/b"),
                member("c", "h:3", "/c"))));
        refused("no 'members' list", Map.of("group", "G"));
        Membership ok = Membership.parse(Map.of("group", "G", "members", List.of(member("a", "h:1", "/a"),
                member("b", "h:2", "/b"), member("c", "h:3", "/c"))));
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> ok.member("d"));
        assertTrue(unknown.getMessage().contains("its members are [a, b, c]"), unknown.getMessage());
    }

    private static void refused(String expected, Map<String, ?> section) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Membership.parse(section));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
