package org.wharfmq.server.replication;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestCertificates;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Members added and removed at run time ({@link MemberChanges} over real Ratis members in this JVM, as
 * {@link ReplicatedLogTest}'s): each refusal names what and why; a new member started with the new member list catches
 * up with what the group committed (its log purged after snapshots) and takes part; removals keep a majority that
 * answers; and the group restarted after the changes, each member on its own (stale) replication block, is the
 * changed group. Tagged slow (elections and catch-up on a loaded machine).
 */
@Tag("slow")
class MemberChangeTest {

    private static final String[] IDS = {"a", "b", "c", "d", "e"};
    /** As {@link MemberChanges} is given in production: a replica heard from within the election timeout answers. */
    private static final ReplicationConfiguration.Timings TIMINGS = new ReplicationConfiguration.Timings(
            Duration.ofMillis(1000), Duration.ofMillis(2000), 16 << 10, 16 << 10);
    /** Generous: a new member catches up before the change commits, on a loaded machine. */
    private static final Duration CHANGE = Duration.ofSeconds(90);

    private final List<String> sent = new ArrayList<>();
    private final Member[] members = new Member[IDS.length];
    /** What each member's replication block lists: the founders' the first three, later ones the group they join. */
    private final Membership[] blocks = new Membership[IDS.length];
    private final ReplicatedLog[] logs = new ReplicatedLog[IDS.length];
    private final RecordingSink[] sinks = new RecordingSink[IDS.length];
    private TestCertificates.Issued ca;

    @Test
    void membersAreAddedAndRemovedAtRunTimeAndTheChangedGroupRestarts(@TempDir Path dir) throws Exception {
        ca = TestCertificates.ca("replication-group");
        for (int i = 0; i < IDS.length; i++) {
            members[i] = new Member(IDS[i], "127.0.0.1", FreePorts.one(), dir.resolve(IDS[i]));
        }
        blocks[0] = blocks[1] = blocks[2] = new Membership("TEST", List.of(members[0], members[1], members[2]));
        blocks[3] = new Membership("TEST", List.of(members[0], members[1], members[2], members[3]));
        blocks[4] = new Membership("TEST", List.of(members));
        try {
            CompletableFuture.allOf(CompletableFuture.runAsync(() -> start(0)),
                    CompletableFuture.runAsync(() -> start(1)), CompletableFuture.runAsync(() -> start(2))).join();
            int active = awaitActive();
            // past snapshots and purged log segments on all three, so that whichever leads, a new member can only
            // catch up from a snapshot it is sent (the purge runs in the background on each: more batches until done)
            append(active, "x".repeat(1000), 40);
            for (int round = 0; logs[0].logStartIndex() <= 0 || logs[1].logStartIndex() <= 0
                    || logs[2].logStartIndex() <= 0; round++) {
                assertTrue(round < 20, "the members never purged their logs after a snapshot");
                append(awaitActive(), "y".repeat(1000), 16);
            }

            // refusals, each naming what and why, and changing nothing
            String self = IDS[active];
            refused("is the active instance, which cannot remove itself", () -> changes().remove(self));
            refused("has no member 'zz'; its members are [a, b, c]", () -> changes().remove("zz"));
            refused("has a member 'b' already", () -> changes().add("b", "127.0.0.1:" + members[3].port()));
            refused("listens on " + members[1].address() + " already",
                    () -> changes().add("d", members[1].address()));
            refused("is not host:port", () -> changes().add("d", "nohost"));
            refused("is not valid", () -> changes().add("d d", members[3].address()));
            refused("a group keeps at least 3. Add its replacement first",
                    () -> changes().remove(IDS[(awaitActive() + 1) % 3]));
            // a member never started cannot catch up: the change is tried until its time is spent, and fails naming
            // the fix (a short time here: each attempt is three election timeouts)
            String nowhere = "127.0.0.1:" + FreePorts.one();
            refused("Start member x first", () -> new MemberChanges(logs[awaitActive()], "TEST",
                    TIMINGS.electionTimeoutMax(), Duration.ofSeconds(10)).add("x", nowhere));
            assertEquals(Set.of("a", "b", "c"), logs[awaitActive()].members().keySet());

            // d, started on the new list and added at once (Ratis may give up before it first answers: tried again),
            // joins, catches up with everything committed (the start of which no log holds
            // any more: through a snapshot), and takes part
            start(3);
            String added = changes().add("d", members[3].address());
            assertTrue(added.contains("its members are [a, b, c, d]"), added);
            append(awaitActive(), "after-d", 5);
            assertAllHold(0, 1, 2, 3);
            start(4);
            changes().add("e", members[4].address());
            append(awaitActive(), "after-e", 5);
            assertAllHold(0, 1, 2, 3, 4);

            // two of five stopped: removing one that answers would leave two of four answering, no majority
            active = awaitActive();
            int[] others = othersThan(active);
            int down1 = others[0];
            int down2 = others[1];
            stop(down1);
            stop(down2);
            int leader = active;
            Trio.await(IDS[down1] + " and " + IDS[down2] + " to be past answering on the active member", () -> {
                var contact = logs[leader].lastContactMillis();
                return past(contact.get(IDS[down1])) && past(contact.get(IDS[down2]));
            });
            refused("so the group would stop taking work", () -> changes().remove(IDS[others[2]]));
            // the stopped ones may go, one at a time: three of four, then three of three answer
            changes().remove(IDS[down1]);
            changes().remove(IDS[down2]);
            int[] left = {active, others[2], others[3]};
            Set<String> group = Set.of(IDS[left[0]], IDS[left[1]], IDS[left[2]]);
            for (int i : left) {
                Trio.await(IDS[i] + " to have the new members", () -> logs[i].members().keySet().equals(group));
            }
            append(awaitActive(), "three-left", 5);
            assertAllHold(left);

            // all three restarted, each on its own block (a founder's still lists a, b, c): the log's members win
            for (int i : left) {
                stop(i);
            }
            CompletableFuture.allOf(CompletableFuture.runAsync(() -> start(left[0])),
                    CompletableFuture.runAsync(() -> start(left[1])),
                    CompletableFuture.runAsync(() -> start(left[2]))).join();
            for (int i : left) {
                assertEquals(group, logs[i].members().keySet(), "member " + IDS[i] + " after its restart");
            }
            append(awaitActive(), "restarted", 5);
            assertAllHold(left);
        } finally {
            for (int i = 0; i < IDS.length; i++) {
                if (logs[i] != null) {
                    logs[i].close();
                }
            }
        }
    }

    /** The active member's changes, as {@code define member} and {@code delete member} reach them. */
    private MemberChanges changes() {
        return new MemberChanges(logs[awaitActive()], "TEST", TIMINGS.electionTimeoutMax(), CHANGE);
    }

    private static boolean past(Long millis) {
        return millis == null || millis > TIMINGS.electionTimeoutMax().toMillis();
    }

    private static void refused(String expected, Executable change) {
        RuntimeException e = assertThrows(RuntimeException.class, change);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    /** The running members other than {@code active}, in id order. */
    private int[] othersThan(int active) {
        List<Integer> others = new ArrayList<>();
        for (int i = 0; i < IDS.length; i++) {
            if (i != active && logs[i] != null) {
                others.add(i);
            }
        }
        return others.stream().mapToInt(Integer::intValue).toArray();
    }

    private void start(int i) {
        try {
            Trio.awaitFree(members[i].port());
            sinks[i] = new RecordingSink();
            logs[i] = ReplicatedLog.start(blocks[i], IDS[i], Trio.memberTls(ca, IDS[i]), sinks[i],
                    ActiveListener.NONE, TIMINGS, Trio.SETTINGS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void stop(int i) throws Exception {
        logs[i].close();
        logs[i] = null;
    }

    private int awaitActive() {
        int[] found = {-1};
        Trio.await("a member to become active", () -> {
            for (int i = 0; i < IDS.length; i++) {
                if (logs[i] != null && logs[i].isActive()) {
                    found[0] = i;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    /** Appends {@code n} batches, one at a time, each once ({@link #appendOnce}). */
    private void append(int active, String prefix, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            String batch = prefix + "-" + sent.size();
            appendOnce(active, batch);
            sent.add(batch);
            active = awaitActive();
        }
    }

    /**
     * Appends one batch. On a loaded machine the leadership may change under it, above all around a change of the
     * members: the batch is then refused (NotActiveException) and is in the log on every member or on none, so the
     * next active member, once it has applied what is committed, says which; if none, it is appended again there.
     */
    private void appendOnce(int active, String batch) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                logs[active].append(RecordingSink.batch(batch))
                        .get(Trio.WAIT.toSeconds(), TimeUnit.SECONDS);
                return;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof NotActiveException) || attempt == 5) {
                    throw e;
                }
            }
            int now = awaitActive();
            long committed = logs[now].status().committedIndex();
            Trio.await("member " + IDS[now] + " to apply what is committed",
                    () -> logs[now].appliedIndex() >= committed);
            List<String> held = sinks[now].batches();
            if (!held.isEmpty() && held.get(held.size() - 1).equals(batch)) {
                return;
            }
            active = now;
        }
    }

    /** Each of {@code indexes} applies every batch sent, in order, once. */
    private void assertAllHold(int... indexes) {
        for (int i : indexes) {
            Trio.await("member " + IDS[i] + " to apply " + sent.size() + " batches (has " + sinks[i].size() + ")",
                    () -> sinks[i].size() >= sent.size());
            assertEquals(sent, sinks[i].batches(), "member " + IDS[i]);
        }
    }
}
