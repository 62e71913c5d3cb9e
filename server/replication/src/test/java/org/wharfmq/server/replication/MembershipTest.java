package org.wharfmq.server.replication;

import org.junit.jupiter.api.Test;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.Settings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code replication:} block: three members, each its own id, address and data directory, and the TLS files. */
class MembershipTest {

    @Test
    void readsThreeMembers() {
        ReplicationSettings settings = ReplicationSettings.SECTION.read(file("WHARF",
                member("a", "mq1:7420", "/srv/a"), member("b", "mq2:7420", "/srv/b"), member("c", "mq3:7421", "/srv/c")));
        assertEquals(Path.of("/etc/wharf/member.p12"), settings.keyStore());
        assertEquals(Path.of("/etc/wharf/ca.p12"), settings.trustStore());
        Membership m = settings.membership();
        assertEquals("WHARF", m.group());
        assertEquals(new Member("c", "mq3", 7421, Path.of("/srv/c")), m.member("c"));
        assertEquals(Path.of("/srv/b/replication"), m.member("b").replicationDirectory());
        assertEquals(m.groupUuid(), ReplicationSettings.SECTION.read(file("WHARF", member("x", "h:1", "/x"),
                member("y", "h:2", "/y"), member("z", "h:3", "/z"))).membership().groupUuid(),
                "the group's id depends on its name only, so every member derives the same");
        assertNull(ReplicationSettings.SECTION.read(new Settings("wharf.yaml", "")), "no block, no replication");
    }

    /** A member's HTTP listener, where the list gives it: what a replica names for the console; a wrong one refused. */
    @Test
    void readsAMembersHttpUrlWhereTheListGivesIt() {
        Settings b = member("b", "mq2:7420", "/srv/b");
        b.put("httpUrl", new Settings.Value("https://mq2:7480", 12));
        Membership m = ReplicationSettings.SECTION.read(file("WHARF", member("a", "mq1:7420", "/srv/a"), b,
                member("c", "mq3:7420", "/srv/c"))).membership();
        assertEquals("https://mq2:7480", m.httpUrl("b"));
        assertNull(m.httpUrl("a"), "not given");
        assertNull(m.httpUrl("d"), "not listed (added at run time)");
        b.put("httpUrl", new Settings.Value("mq2:7480", 12));
        refused("Setting httpUrl of member 'b' must be the member's HTTP listener as http://HOST:PORT or "
                + "https://HOST:PORT, was 'mq2:7480'", file("WHARF", member("a", "mq1:7420", "/srv/a"), b,
                member("c", "mq3:7420", "/srv/c")));
    }

    @Test
    void snapshotsEveryLogBytesByDefaultOrAsTheBlockSays() {
        Settings file = file("G", member("a", "h:1", "/a"), member("b", "h:2", "/b"), member("c", "h:3", "/c"));
        assertEquals(ReplicationConfiguration.SNAPSHOT_LOG_BYTES.defaultValue(),
                ReplicationSettings.SECTION.read(file).timings().snapshotEveryLogBytes());
        file.section("replication").put("snapshotLogBytes", new Settings.Value(String.valueOf(64L << 20), 4));
        assertEquals(64L << 20, ReplicationSettings.SECTION.read(file).timings().snapshotEveryLogBytes());
        // below a log file (32 MiB by default): a snapshot could never purge one
        file.section("replication").put("snapshotLogBytes", new Settings.Value(String.valueOf(1L << 20), 4));
        refused("Invalid value for setting 'replication.snapshotLogBytes'", file);
        refused("it is " + (1L << 20) + ", below logFileBytes (" + ReplicationConfiguration.LOG_SEGMENT_BYTES + ")",
                file);
        refused("give " + ReplicationConfiguration.LOG_SEGMENT_BYTES + " or more, or a smaller logFileBytes", file);
        // with log files of 1 MiB (a small queue manager, or a test that needs a purged log soon), taken
        file.section("replication").put("logFileBytes", new Settings.Value(String.valueOf(1L << 20), 5));
        ReplicationConfiguration.Timings small = ReplicationSettings.SECTION.read(file).timings();
        assertEquals(1L << 20, small.snapshotEveryLogBytes());
        assertEquals(1L << 20, small.logSegmentBytes());
        // below the least either takes
        file.section("replication").put("logFileBytes", new Settings.Value(String.valueOf(64L << 10), 5));
        refused("Setting replication.logFileBytes must be " + ReplicationConfiguration.MIN_LOG_FILE_BYTES + " to", file);
        file.section("replication").put("logFileBytes", new Settings.Value(String.valueOf(1L << 20), 5));
        file.section("replication").put("snapshotLogBytes", new Settings.Value(String.valueOf(64L << 10), 4));
        refused("Setting replication.snapshotLogBytes must be at least", file);
        refused("was " + (64L << 10) + ". (in wharf.yaml at line 4)", file);
    }

    @Test
    void electsAfterOneToOneAndAHalfSecondsByDefaultOrAsTheBlockSays() {
        Settings file = file("G", member("a", "h:1", "/a"), member("b", "h:2", "/b"), member("c", "h:3", "/c"));
        ReplicationConfiguration.Timings timings = ReplicationSettings.SECTION.read(file).timings();
        assertEquals(Duration.ofSeconds(1), timings.electionTimeoutMin());
        assertEquals(Duration.ofMillis(1500), timings.electionTimeoutMax());
        file.section("replication").put("electionTimeoutMillis", new Settings.Value("3000", 4));
        timings = ReplicationSettings.SECTION.read(file).timings();
        assertEquals(Duration.ofSeconds(3), timings.electionTimeoutMin());
        assertEquals(Duration.ofMillis(4500), timings.electionTimeoutMax());
        file.section("replication").put("electionTimeoutMillis", new Settings.Value("50", 4));
        refused("Setting replication.electionTimeoutMillis must be 100 to 60000 milliseconds", file);
        refused("raise it above the active member's longest pause), was 50", file);
    }

    @Test
    void refusesWhatCannotMakeAGroupNamingTheSettingAndTheFix() {
        refused("needs at least 3", file("G", member("a", "h:1", "/a"), member("b", "h:2", "/b")));
        refused("names member 'a' twice", file("G", member("a", "h:1", "/a"), member("a", "h:2", "/b"),
                member("c", "h:3", "/c")));
        refused("share the data directory", file("G", member("a", "h:1", "/a"), member("b", "h:2", "/a/"),
                member("c", "h:3", "/c")));
        refused("share the address", file("G", member("a", "h:1", "/a"), member("b", "h:1", "/b"),
                member("c", "h:3", "/c")));
        refused("Setting address of member 'a' must be host:port, the member's replication address, was 'h'. (in "
                + "wharf.yaml at line 10)",
                file("G", member("a", "h", "/a"), member("b", "h:2", "/b"), member("c", "h:3", "/c")));
        refused("has no group", file(null, member("a", "h:1", "/a"), member("b", "h:2", "/b"),
                member("c", "h:3", "/c")));
        Settings typo = member("b", "h:2", "/b");
        typo.put("dataDir", new Settings.Value("/b", 12));
        refused("Unknown setting 'replication.members[b].dataDir'", file("G", member("a", "h:1", "/a"), typo,
                member("c", "h:3", "/c")));
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> ReplicationSettings.SECTION.read(file("G", member("a", "h:1", "/a"), member("b", "h:2", "/b"),
                        member("c", "h:3", "/c"))).membership().member("d"));
        assertTrue(unknown.getMessage().contains("its members are [a, b, c]"), unknown.getMessage());
    }

    private static void refused(String expected, Settings file) {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ReplicationSettings.SECTION.read(file));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    /** A member's block, as the YAML reader gives it (its keys at lines 9 to 11; its path by id, for short). */
    private static Settings member(String id, String address, String dataDirectory) {
        Settings m = new Settings("wharf.yaml", "replication.members[" + id + "]");
        m.put("id", new Settings.Value(id, 9));
        m.put("address", new Settings.Value(address, 10));
        m.put("dataDirectory", new Settings.Value(dataDirectory, 11));
        return m;
    }

    private static Settings file(String group, Settings... memberBlocks) {
        Settings block = new Settings("wharf.yaml", "replication");
        if (group != null) {
            block.put("group", new Settings.Value(group, 2));
        }
        List<Settings.Value> list = new ArrayList<>();
        for (Settings m : memberBlocks) {
            list.add(new Settings.Value(m, 3));
        }
        block.put("members", new Settings.Value(list, 3));
        Settings tls = new Settings("wharf.yaml", "replication.tls");
        tls.put("keyStore", new Settings.Value("/etc/wharf/member.p12", 13));
        tls.put("trustStore", new Settings.Value("/etc/wharf/ca.p12", 14));
        block.put("tls", new Settings.Value(tls, 12));
        Settings file = new Settings("wharf.yaml", "");
        file.put("replication", new Settings.Value(block, 1));
        return file;
    }
}
