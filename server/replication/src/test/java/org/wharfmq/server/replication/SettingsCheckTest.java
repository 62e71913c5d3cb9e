package org.wharfmq.server.replication;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestCertificates;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real Ratis members in this JVM: a member whose {@code maxMessageLength} or queue manager name differs from the
 * running members' is refused at its start, naming the setting, both values, the members and the fix; one that could
 * not compare at its start (started with the others, none up yet) is refused as it applies the settings the active
 * member appended once elected, in the same words; started again with the group's settings, it joins and applies what
 * the others commit. Tagged slow (an election).
 *
 * <p>No step waits for a time: the checks at the start wait for both running members' answers (the test's start
 * waits up to {@link Trio#WAIT} for them, where a member's own start gives up after 3 s), the refusal at the election
 * is awaited as the listener hears it, and the batch at the end is awaited on every member.
 */
@Tag("slow")
class SettingsCheckTest {

    private static final ReplicationConfiguration.Timings TIMINGS = new ReplicationConfiguration.Timings(
            Duration.ofMillis(1000), Duration.ofMillis(2000), 1 << 20, 1 << 20);

    private final ReplicatedLog[] logs = new ReplicatedLog[3];
    private final RecordingSink[] sinks = new RecordingSink[3];

    @Test
    void aMemberWhoseSettingsDifferFromTheGroupsIsRefusedAtStartOrAtTheElectionAndJoinsWithTheGroupsSettings(
            @TempDir Path dir) throws Exception {
        TestCertificates.Issued ca = TestCertificates.ca("replication-group");
        List<Member> list = new ArrayList<>();
        for (String id : new String[] {"a", "b", "c"}) {
            list.add(new Member(id, "127.0.0.1", FreePorts.one(), dir.resolve(id)));
        }
        Membership membership = new Membership("TEST", list);
        Member c = membership.members().get(2);
        try {
            CompletableFuture<Void> a = CompletableFuture.runAsync(() -> start(membership, ca, 0));
            CompletableFuture<Void> b = CompletableFuture.runAsync(() -> start(membership, ca, 1));
            CompletableFuture.allOf(a, b).get(Trio.WAIT.toMillis(), TimeUnit.MILLISECONDS);

            int groupLength = Trio.SETTINGS.maxMessageLength();
            IllegalArgumentException smaller = assertThrows(IllegalArgumentException.class, () -> ReplicatedLog.start(
                    membership, "c", Trio.memberTls(ca, "c"), new RecordingSink(), ActiveListener.NONE, TIMINGS,
                    GroupSettings.of("TEST", 1 << 20), Trio.WAIT));
            String refused = smaller.getMessage();
            for (String other : new String[] {"a", "b"}) {
                assertTrue(refused.contains("Replication member c of group 'TEST' has maxMessageLength 1048576, but "
                        + "member " + other + " has " + groupLength), refused);
            }
            assertTrue(refused.contains("Set maxMessageLength: " + groupLength + " in c's configuration file"),
                    refused);
            assertTrue(refused.contains("then start c again"), refused);

            Trio.awaitFree(c.port()); // the refused member's listener closed
            IllegalArgumentException renamed = assertThrows(IllegalArgumentException.class, () -> ReplicatedLog.start(
                    membership, "c", Trio.memberTls(ca, "c"), new RecordingSink(), ActiveListener.NONE, TIMINGS,
                    GroupSettings.of("OTHER", groupLength), Trio.WAIT));
            assertTrue(renamed.getMessage().contains("has name OTHER, but member a has TEST"), renamed.getMessage());

            // started at the same moment as the others, c would find none of them up and compare nothing at its
            // start (here: it asks none); it compares the settings the active member appended once elected as it
            // applies them, and is refused so
            awaitActive();
            Trio.awaitFree(c.port());
            Trio.deleteTree(c.dataDirectory()); // new, as when started with the others
            CompletableFuture<String> refusal = new CompletableFuture<>();
            ReplicatedLog unchecked = ReplicatedLog.start(membership, "c", Trio.memberTls(ca, "c"),
                    new RecordingSink(), refusals(refusal), TIMINGS, GroupSettings.of("TEST", 1 << 20), Duration.ZERO);
            String refusedAtElection;
            try {
                // c, down through the refusals above, is reached again only at the active member's retry interval
                // (Ratis's backoff: 5 s after 30 failed appends), then catches up: longer than Trio.WAIT on a loaded
                // machine (35 s at load 35)
                refusedAtElection = refusal.get(3 * Trio.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } finally {
                unchecked.close();
            }
            // the member active when c applied them (a or b: the leadership may have moved meanwhile)
            assertTrue(refusedAtElection.matches("Replication member c of group 'TEST' has maxMessageLength 1048576, "
                    + "but member [ab] has " + groupLength + ": .*"), refusedAtElection);
            assertTrue(refusedAtElection.contains("Set maxMessageLength: " + groupLength + " in c's configuration "
                    + "file"), refusedAtElection);

            // the refused starts left nothing behind: started with the group's settings, c joins (the settings entry
            // it was refused at, in its log, now compares equal) and applies what the others commit
            start(membership, ca, 2);
            appendAfter();
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

    /**
     * Appends one batch on the active member. Should the leadership move meanwhile (a loaded machine), the batch is
     * in the log on every member or on none: the next active member, once it applied what is committed, says which,
     * and if none it is appended there.
     */
    private void appendAfter() throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                logs[awaitActive()].append(RecordingSink.batch("after")).get(Trio.WAIT.toMillis(),
                        TimeUnit.MILLISECONDS);
                return;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof NotActiveException) || attempt == 3) {
                    throw e;
                }
            }
            ReplicatedLog now = logs[awaitActive()];
            long committed = now.status().committedIndex();
            Trio.await("member " + now.id() + " to apply what is committed", () -> now.appliedIndex() >= committed);
            int member = java.util.Arrays.asList(logs).indexOf(now);
            if (sinks[member].size() == 1) {
                return;
            }
        }
    }

    private static ActiveListener refusals(CompletableFuture<String> refusal) {
        return new ActiveListener() {
            @Override
            public void active() {
            }

            @Override
            public void inactive() {
            }

            @Override
            public void refused(String reason) {
                refusal.complete(reason);
            }
        };
    }

    private void start(Membership membership, TestCertificates.Issued ca, int i) {
        Member member = membership.members().get(i);
        try {
            Trio.awaitFree(member.port());
            sinks[i] = new RecordingSink();
            logs[i] = ReplicatedLog.start(membership, member.id(), Trio.memberTls(ca, member.id()), sinks[i],
                    ActiveListener.NONE, TIMINGS, Trio.SETTINGS);
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
