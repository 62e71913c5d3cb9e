package org.wharfmq.server.replication;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.TestCertificates;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real Ratis members in this JVM: a member whose {@code maxMessageLength} or queue manager name differs from the
 * running members' is refused at its start, naming the setting, both values, the members and the fix; started again
 * with the group's settings, it joins and applies what the others commit. Tagged slow (an election).
 */
@Tag("slow")
class SettingsCheckTest {

    private static final ReplicationConfiguration.Timings TIMINGS = new ReplicationConfiguration.Timings(
            Duration.ofMillis(1000), Duration.ofMillis(2000), 1 << 20, 1 << 20);

    private final ReplicatedLog[] logs = new ReplicatedLog[3];
    private final RecordingSink[] sinks = new RecordingSink[3];

    @Test
    void aMemberWhoseSettingsDifferFromTheRunningMembersIsRefusedAtStartAndJoinsWithTheGroupsSettings(
            @TempDir Path dir) throws Exception {
        TestCertificates.Issued ca = TestCertificates.ca("replication-group");
        List<Member> list = new ArrayList<>();
        for (String id : new String[] {"a", "b", "c"}) {
            list.add(new Member(id, "127.0.0.1", Trio.freePort(), dir.resolve(id)));
        }
        Membership membership = new Membership("TEST", list);
        try {
            CompletableFuture<Void> a = CompletableFuture.runAsync(() -> start(membership, ca, 0, Trio.SETTINGS));
            CompletableFuture<Void> b = CompletableFuture.runAsync(() -> start(membership, ca, 1, Trio.SETTINGS));
            CompletableFuture.allOf(a, b).get(Trio.WAIT.toMillis(), TimeUnit.MILLISECONDS);

            int groupLength = Trio.SETTINGS.maxMessageLength();
            IllegalArgumentException smaller = assertThrows(IllegalArgumentException.class, () -> ReplicatedLog.start(
                    membership, "c", Trio.memberTls(ca, "c"), new RecordingSink(), ActiveListener.NONE, TIMINGS,
                    GroupSettings.of("TEST", 1 << 20)));
            String refused = smaller.getMessage();
            for (String other : new String[] {"a", "b"}) {
                assertTrue(refused.contains("Replication member c of group 'TEST' has maxMessageLength 1048576, but "
                        + "member " + other + " has " + groupLength), refused);
            }
            assertTrue(refused.contains("Set maxMessageLength: " + groupLength + " in c's configuration file"),
                    refused);
            assertTrue(refused.contains("then start c again"), refused);

            Trio.awaitFree(membership.members().get(2).port()); // the refused member's listener closed
            IllegalArgumentException renamed = assertThrows(IllegalArgumentException.class, () -> ReplicatedLog.start(
                    membership, "c", Trio.memberTls(ca, "c"), new RecordingSink(), ActiveListener.NONE, TIMINGS,
                    GroupSettings.of("OTHER", groupLength)));
            assertTrue(renamed.getMessage().contains("has name OTHER, but member a has TEST"), renamed.getMessage());

            // the refused starts left nothing behind: started with the group's settings, c joins
            start(membership, ca, 2, Trio.SETTINGS);
            int active = awaitActive();
            logs[active].append(RecordingSink.batch("after"))
                    .get(Trio.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            for (int i = 0; i < 3; i++) {
                int member = i;
                Trio.await("member " + i + " to apply the batch", () -> sinks[member].size() == 1);
                assertEquals(List.of("after"), sinks[i].batches());
            }
        } finally {
            for (ReplicatedLog log : logs) {
                if (log != null) {
                    log.close();
                }
            }
        }
    }

    private void start(Membership membership, TestCertificates.Issued ca, int i, GroupSettings settings) {
        Member member = membership.members().get(i);
        try {
            Trio.awaitFree(member.port());
            sinks[i] = new RecordingSink();
            logs[i] = ReplicatedLog.start(membership, member.id(), Trio.memberTls(ca, member.id()), sinks[i],
                    ActiveListener.NONE, TIMINGS, settings);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private int awaitActive() {
        int[] found = {-1};
        Trio.await("a member to become active", () -> {
            for (int i = 0; i < 3; i++) {
                if (logs[i] != null && logs[i].isActive()) {
                    found[0] = i;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }
}
