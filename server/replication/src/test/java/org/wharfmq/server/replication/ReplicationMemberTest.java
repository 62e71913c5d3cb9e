package org.wharfmq.server.replication;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestCertificates;
import org.wharfmq.server.config.QueueConfiguration;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.QueueDefinitionFile;
import org.wharfmq.server.store.JournalMessageStore;
import org.wharfmq.server.store.RecoveryTarget;
import org.wharfmq.server.store.StoredMessage;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three members of a replicated queue manager in this JVM, each with its own data directory and journal: a
 * persistent message the active instance confirms is on a majority (the next active instance recovers it, from the
 * state it kept as a replica: what crash recovery of its journal would give, without reading it back), a member that was active rejoins as a replica, and an active instance without a majority confirms
 * nothing and is fenced; a message of 100 MiB (the default maxMessageLength, 25 log entries of 4 MiB) goes through
 * the takeover and the rejoin. Tagged slow (elections on a loaded machine).
 */
@Tag("slow")
class ReplicationMemberTest {

    private static final Duration WAIT = Trio.WAIT;
    /** The members' maxMessageLength: the default, 100 MiB. */
    private static final int MAX_MESSAGE_LENGTH = org.wharfmq.server.Configuration.MAX_MESSAGE_LENGTH.defaultValue();
    /** A body as large as the default maxMessageLength takes with a message's headers: 25 log entries of 4 MiB. */
    private static final int LARGE_BYTES = MAX_MESSAGE_LENGTH - (64 << 10);

    private final ReplicationMember[] members = new ReplicationMember[3];
    private final JournalMessageStore[] stores = new JournalMessageStore[3];
    private Membership membership;
    private TestCertificates.Issued ca;
    private ReplicationConfiguration.Timings timings = new ReplicationConfiguration.Timings(
            Duration.ofMillis(1000), Duration.ofMillis(2000), ReplicationConfiguration.SNAPSHOT_LOG_BYTES.defaultValue(),
            ReplicationConfiguration.LOG_SEGMENT_BYTES);
    /** The members' configuration: the default journal, maxMessageLength {@link #MAX_MESSAGE_LENGTH}. */
    private java.util.function.UnaryOperator<ServerConfig.Builder> tuning = b -> b.maxMessageLength(MAX_MESSAGE_LENGTH);

    @Test
    void aConfirmedPersistentMessageIsOnAMajorityAndAnActiveInstanceWithoutOneConfirmsNothing(@TempDir Path dir)
            throws Exception {
        startAll(dir);
        try {
            int elected = takeOver();
            // a queue defined at run time: its definitions file is committed through the log to the replicas
            members[elected].definitions().write(List.of(QueueDefinition.named("RUNTIME.Q").with(QueueConfiguration.MAX_DEPTH, 1234L)), List.of());
            for (int i = 0; i < 3; i++) {
                int member = i;
                Trio.await("member " + i + "'s definitions", () -> definitions(member).equals(List.of("RUNTIME.Q")));
            }
            assertNull(put(stores[elected], "ORDERS", 1, "one"), "the first message was not confirmed");
            assertNull(put(stores[elected], "ORDERS", 2, "two"), "the second message was not confirmed");
            int first = elected;
            workload(stores[first]);

            // the active instance goes: another one is elected, and starts from the state it kept as a replica (the
            // two messages, and the workload's), which is what crash recovery of its journal gives, without reading it
            // back
            stores[first].close();
            members[first].close();
            members[first] = null;
            int second = takeOver();
            assertRecoveredAsCrashRecoveryWould(second, copyJournal(second, dir.resolve("copy")));
            assertEquals(1234L, QueueDefinitionFile.in(membership.members().get(second).dataDirectory()).read()
                    .queues().get(0).get(QueueConfiguration.MAX_DEPTH));

            // the first one rejoins as a replica: its journal is rebuilt from the log, and it follows the new one
            start(first);
            assertNull(put(stores[second], "ORDERS", 3, "three"), "a message after the failover was not confirmed");
            long committed = members[second].log().status().committedIndex();
            Trio.await("the old active instance to catch up as a replica",
                    () -> members[first].log().appliedIndex() >= committed);
            // its definitions were deleted at its start with its journal, and the log brought them back
            assertEquals(List.of("RUNTIME.Q"), definitions(first));

            // cut off from both replicas, the active instance confirms nothing and is fenced
            for (int i = 0; i < 3; i++) {
                if (i != second) {
                    members[i].close();
                    members[i] = null;
                }
            }
            Throwable refused = put(stores[second], "ORDERS", 4, "four");
            assertNotNull(refused, "a message was confirmed by an active instance without a majority");
            assertInstanceOf(NotActiveException.class, refused);
            String reason = members[second].fenced().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertNotNull(reason);
        } finally {
            closeAll();
        }
    }

    /**
     * A persistent message of the default maxMessageLength (100 MiB: 25 log entries of 4 MiB, Ratis's limits at their
     * defaults) is confirmed by the active member, recovered whole by the next one when it stops, and rebuilt whole
     * by the member that rejoins, from the pieces in its own log: crash recovery of its journal has it. Its own
     * timeout: three members moving 100 MiB each, in one JVM on a loaded machine, take minutes.
     */
    @Test
    @org.junit.jupiter.api.Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aMessageOfTheDefaultMaxMessageLengthGoesThroughATakeoverAndARejoin(@TempDir Path dir) throws Exception {
        startAll(dir);
        try {
            int elected = takeOver();
            ByteBuf large = largeBody();
            String seen = "LARGE/%d=" + describe(large) + " 1";
            Runtime runtime = Runtime.getRuntime();
            long heapBefore = runtime.totalMemory() - runtime.freeMemory();
            long putAt = System.nanoTime();
            Confirmed confirmed = putLarge(elected, large);
            System.out.println("ReplicationMemberTest: a " + LARGE_BYTES + "-byte message confirmed in "
                    + (System.nanoTime() - putAt) / 1_000_000 + " ms (attempt " + confirmed.sequence() + "); heap in "
                    + "use before " + heapBefore / (1 << 20) + " MiB, after " + (runtime.totalMemory()
                    - runtime.freeMemory()) / (1 << 20) + " MiB (three members)");
            String whole = String.format(seen, confirmed.sequence());
            int first = confirmed.member();

            // the next active member has it whole (an attempt that was not confirmed only if committed after all,
            // and then whole too)
            stores[first].close();
            members[first].close();
            members[first] = null;
            int second = takeOver();
            List<String> live = recoverAll(stores[second]);
            assertTrue(live.contains(whole), "the large message: " + live);
            for (String r : live) {
                assertTrue(!r.startsWith("LARGE/") || r.endsWith(whole.substring(whole.indexOf('='))), r);
            }

            // the first one rejoins: its journal rebuilt from its own log, the pieces joined again
            start(first);
            assertNull(put(stores[second], "ORDERS", 1, "after"), "a message after the takeover was not confirmed");
            long committed = members[second].log().status().committedIndex();
            Trio.await("the rejoined member to catch up", () -> members[first].log().appliedIndex() >= committed);
            ServerConfig config = ServerConfig.builder().name("TEST").dataDirectory(copyJournal(first,
                    dir.resolve("rejoined"))).maxMessageLength(MAX_MESSAGE_LENGTH).build();
            try (JournalMessageStore crash = JournalMessageStore.open(config)) {
                List<String> rebuilt = recoverAll(crash);
                assertTrue(rebuilt.contains(whole) && rebuilt.contains("ORDERS/1=after 1"), "" + rebuilt);
            }
        } finally {
            closeAll();
        }
    }

    /**
     * A planned switchover while the active instance is busy confirming messages lands on the member it names, every
     * time: the journal's batches wait while it runs, so the named member's log is as long as the leader's when it
     * stands and the other replica votes for it (without the wait, a batch appended meanwhile made the other replica's
     * log the longer one, and it could win the election instead). Held batches fail (they are in no log), and the
     * messages confirmed before are on the new active instance.
     */
    @Test
    void aSwitchoverUnderLoadHandsTheActiveRoleToTheMemberItNames(@TempDir Path dir) throws Exception {
        startAll(dir);
        try {
            int active = takeOver();
            long sequence = 0;
            for (int round = 0; round < 3; round++) {
                int to = (active + 2) % 3; // each member in turn
                Load load = new Load(stores[active], "ORDERS", sequence);
                load.awaitConfirmed(20);
                String started = members[active].switchover(membership.members().get(to).id());
                assertTrue(started.contains("to member " + membership.members().get(to).id()), started);
                assertNotNull(members[active].fenced().get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
                List<Long> confirmed = load.stop();
                int other = 3 - active - to;
                CompletableFuture.anyOf(members[to].elected(), members[other].elected())
                        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertFalse(members[other].elected().isDone(), "round " + round + ": member " + other
                        + " was elected, not member " + to + ", the one the switchover named");
                stores[active].close();
                stores[active] = null;
                members[active].close();
                int old = active;
                stores[to] = takeOver(to);
                active = to;
                // "QUEUE/SEQUENCE=": a set, as the rounds recover tens of thousands of messages
                Set<String> recovered = recover(stores[active]).stream()
                        .map(r -> r.substring(0, r.indexOf('=') + 1)).collect(Collectors.toSet());
                for (long s : confirmed) {
                    assertTrue(recovered.contains("ORDERS/" + s + "="),
                            "message " + s + ", confirmed before the switchover, is not on member " + to);
                }
                sequence = load.next();
                start(old); // rejoins as a replica, for the next round's majority
                long committed = members[active].log().status().committedIndex();
                Trio.await("member " + old + " to catch up", () -> members[old].log().appliedIndex() >= committed);
            }
        } finally {
            closeAll();
        }
    }

    /**
     * Issue 35: a member elected, then not (the next election, under load, seconds later), before it took over or
     * while its queue manager starts. Its takeover fences it at once, and a send's failed batch fails its waiter only
     * once the caller stopped serving clients: a client sees its connection lost, never a storage error.
     */
    @Test
    void aMemberThatLosesTheLeadershipBeforeItTakesOverIsFencedAndFailsNoSendBeforeItsClientsAreGone(
            @TempDir Path dir) throws Exception {
        startAll(dir);
        try {
            List<CompletableFuture<Void>> elected = new ArrayList<>();
            for (ReplicationMember m : members) {
                elected.add(m.elected());
            }
            CompletableFuture.anyOf(elected.toArray(CompletableFuture[]::new))
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            int first = elected.get(0).isDone() ? 0 : elected.get(1).isDone() ? 1 : 2;
            int next = handLeadershipOn(first);

            // as wharf server does once elected: it lost the leadership since
            stores[first] = members[first].takeOver();
            assertTrue(members[first].fenced().isDone(), "a member that lost the leadership after its election took "
                    + "over without being fenced");
            assertTrue(members[first].fenced().join().contains("lost the leadership"),
                    members[first].fenced().join());

            // a send reaching it meanwhile (its queue manager starts, clients connect): its batch is refused, and its
            // waiter hears of it once the member stopped serving clients (the caller's answer to the fence)
            CompletableFuture<Throwable> answer = new CompletableFuture<>();
            stores[first].put(new Message("ORDERS", 1, Unpooled.copiedBuffer("in doubt", StandardCharsets.UTF_8)),
                    answer::complete);
            Trio.await("the send's batch to fail", () -> members[first].failuresHeld() == 1);
            assertFalse(answer.isDone(), "a fenced member failed a send before it stopped serving its clients");
            members[first].stoppedServing();
            assertInstanceOf(NotActiveException.class, answer.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));

            stores[next] = takeOver(next);
            assertNull(put(stores[next], "ORDERS", 1, "sent again"), "the new active member confirmed nothing");
        } finally {
            closeAll();
        }
    }

    /**
     * A member fenced while its queue manager still closes (its clients gone, its store still open, as after a pause
     * past the election timeout) hears of its successor at once, and its log applies the successor's batches as they
     * commit: it drops them (its journal is the closing queue manager's, and it is rebuilt from the log when the member
     * starts again as a replica), where it used to fail on them, and a member whose log stops there has its close racing
     * Ratis's own, which could hang it: here its log stays up until it is closed, and it rejoins and catches up.
     */
    @Test
    void aFencedMemberAppliesItsSuccessorsBatchesWithoutStoppingItsLogUntilItRejoins(@TempDir Path dir)
            throws Exception {
        startAll(dir);
        try {
            int first = takeOver();
            assertNull(put(stores[first], "ORDERS", 1, "one"), "the first message was not confirmed");
            int next = handLeadershipOn(first);
            assertTrue(members[first].fenced().get(WAIT.toMillis(), TimeUnit.MILLISECONDS)
                    .contains("lost the leadership"), members[first].fenced().join());
            stores[next] = takeOver(next);
            for (int m = 2; m <= 4; m++) {
                assertNull(put(stores[next], "ORDERS", m, "after " + m), "message " + m + " was not confirmed");
            }
            long committed = members[next].log().status().committedIndex();
            Trio.await("the fenced member to apply its successor's entries",
                    () -> members[first].log().appliedIndex() >= committed);
            assertEquals("FOLLOWER", members[first].log().status().role(), "the fenced member's log stopped");
            assertFalse(members[first].logStopped().isDone(), () -> members[first].logStopped().join());

            // as wharf server does: its queue manager closes, the member closes and starts again as a replica
            stores[first].close();
            stores[first] = null;
            members[first].close();
            start(first);
            assertNull(put(stores[next], "ORDERS", 5, "five"), "a message after the rejoin was not confirmed");
            long now = members[next].log().status().committedIndex();
            Trio.await("the rejoined member to catch up", () -> members[first].log().appliedIndex() >= now);
        } finally {
            closeAll();
        }
    }

    /**
     * A member's log stopping without its owner's close (here closed under it; in life an entry it cannot apply, or
     * its removal from the group) is never silent: the active member is fenced (it rejoins), a replica's owner is told
     * (it can neither serve nor follow: wharf server ends, naming why), where both used to wait for ever.
     */
    @Test
    void aMemberWhoseLogStopsUnderItIsFencedWhenActiveAndSaysSoWhenAReplica(@TempDir Path dir) throws Exception {
        startAll(dir);
        try {
            int active = takeOver();
            int replica = (active + 1) % 3;
            members[replica].log().close();
            assertTrue(members[replica].logStopped().get(WAIT.toMillis(), TimeUnit.MILLISECONDS)
                    .contains("its Raft server stopped"), members[replica].logStopped().join());
            assertFalse(members[replica].fenced().isDone());

            // its leadership ends as its log closes (Ratis tells it first), or the log's stop fences it
            members[active].log().close();
            assertNotNull(members[active].fenced().get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
            assertFalse(members[active].logStopped().isDone());
        } finally {
            closeAll();
        }
    }

    /**
     * A replica that is down is shown so by the active member, not as catching up: once it has not answered for the
     * election timeout's maximum, the active member's state names it unreachable (with its last answer's age) and no
     * longer counts it in sync, while the replica that runs is neither; started again, it answers and is reachable.
     */
    @Test
    void aReplicaThatIsDownIsUnreachableNotCatchingUpAndReachableAgainOnceItRuns(@TempDir Path dir) throws Exception {
        startAll(dir);
        try {
            int active = takeOver();
            int down = (active + 1) % 3;
            String downId = membership.members().get(down).id();
            Trio.await("the three members in sync and answering", () -> members[active].state().inSync() == 3
                    && members[active].state().unreachable().isEmpty());
            members[down].close();
            members[down] = null;

            // the running replica answers all along (awaited, not asserted once: a loaded machine may delay an answer)
            Trio.await("the active member to find member " + downId + " unreachable, and only it",
                    () -> members[active].state().unreachable().equals(java.util.Set.of(downId)));
            org.wharfmq.server.management.ReplicationState state = members[active].state();
            assertTrue(state.unreachable().contains(downId), "the member that is down: " + state);
            assertTrue(state.behind().containsKey(downId), "the member stays in the status: " + state);
            assertTrue(state.inSync() <= 2, "a member that is down is not counted in sync: " + state);
            assertTrue(state.lastContactMillis().get(downId) > timings.electionTimeoutMax().toMillis(),
                    "its last answer is older than the election timeout: " + state);

            start(down);
            Trio.await("member " + downId + " to answer the active member again",
                    () -> !members[active].state().unreachable().contains(downId));
        } finally {
            closeAll();
        }
    }

    /**
     * A replica reclaims its journal's space as the active member does, and its Raft log is purged after its
     * snapshots: after many messages put and consumed (journal files of 64 KiB), each replica's journal holds a few
     * files, not one per 64 KiB written. What keeps the oldest file alive is dealt with as on the active member: five
     * messages never consumed and a prepared transaction in doubt throughout (the active member copies them forward:
     * the copies reach the replicas through the log), and a transaction left open when the first active member
     * stopped (its successor rolled it back at the takeover, and so does every replica when the new term begins).
     * Nothing kept is lost: the last takeover recovers the five messages and the transaction in doubt.
     */
    @Test
    @org.junit.jupiter.api.Timeout(value = 300, unit = TimeUnit.SECONDS) // two takeovers and 800 KiB through three members
    void aReplicaReclaimsItsJournalAndItsLogAsTheActiveMemberDoes(@TempDir Path dir) throws Exception {
        long fileBytes = org.wharfmq.server.Configuration.MIN_JOURNAL_FILE_BYTES;
        tuning = b -> b.maxMessageLength(1 << 20).journalFileBytes(fileBytes).journalSlackBytes(fileBytes);
        timings = new ReplicationConfiguration.Timings(Duration.ofMillis(1000), Duration.ofMillis(2000),
                128 << 10, 64 << 10);
        startAll(dir);
        try {
            int first = takeOver();
            for (int i = 1; i <= 5; i++) {
                assertNull(put(stores[first], "KEEP", i, "kept " + i));
            }
            stores[first].putInTransaction(1, message("KEEP", 6, "sent in tx 1, in doubt"));
            assertNull(done(c -> stores[first].prepare(1, "xid-1".getBytes(StandardCharsets.UTF_8), c)));
            stores[first].putInTransaction(2, message("KEEP", 7, "sent in tx 2, open at the takeover"));
            assertNull(put(stores[first], "KEEP", 8, "after tx 2's send")); // tx 2's PUT is in the log
            stores[first].close();
            members[first].close();
            members[first] = null;
            int active = takeOver();
            recoverAll(stores[active]); // as the queue manager does at its start: its journal's reclamation waits for it
            // the active member's status: the stopped member lacks what it committed since, the other replica nothing
            assertNull(put(stores[active], "KEEP", 9, "while " + first + " is down"));
            Map<String, Long> lacking = members[active].state().behindBytes();
            String firstId = membership.members().get(first).id();
            String otherId = membership.members().get(3 - first - active).id();
            assertTrue(lacking.getOrDefault(firstId, 0L) > 0 && lacking.getOrDefault(otherId, -1L) == 0, "" + lacking);
            start(first);
            Trio.await("member " + firstId + " to catch up, in the active member's status",
                    () -> members[active].state().behindBytes().getOrDefault(firstId, -1L) == 0);

            byte[] body = new byte[1024];
            long sequence = 0;
            long written = 0;
            for (int round = 0; round < 20 || !purged(active); round++) {
                assertTrue(round < 60, "the replicas never purged their logs after a snapshot");
                sequence = putAndConsume(stores[active], body, sequence);
                written += (long) ROUND * body.length;
            }
            long committed = members[active].log().status().committedIndex();
            for (int i = 0; i < 3; i++) {
                if (i == active) {
                    continue;
                }
                int replica = i;
                Trio.await("member " + i + " to apply what was committed",
                        () -> members[replica].log().appliedIndex() >= committed);
                org.wharfmq.server.management.ReplicationState state = members[i].state();
                System.out.println("ReplicationMemberTest: replica " + i + "'s journal " + state.journalBytes()
                        + " bytes in " + state.journalFiles() + " files after " + written + " bytes of messages put and consumed (the "
                        + "active member's journal " + stores[active].journalBytes() + " bytes, "
                        + stores[active].reclaimedFiles() + " files reclaimed); its Raft log from index "
                        + members[i].log().logStartIndex() + ", its replication directory " + bytesUnder(
                        membership.members().get(i).replicationDirectory()) + " bytes");
                assertTrue(state.journalFiles() <= 8, "replica " + i + "'s journal has " + state.journalFiles()
                        + " files of " + fileBytes + " bytes after " + written + " bytes written and consumed");
                assertTrue(state.journalBytes() <= 8 * fileBytes, "replica " + i + "'s journal holds "
                        + state.journalBytes() + " bytes");
            }
            assertTrue(stores[active].reclaimedFiles() > 0, "the active member reclaimed nothing");

            // the replicas' state is right: the next active member recovers the kept messages and the transaction
            stores[active].close();
            members[active].close();
            members[active] = null;
            int last = takeOver();
            List<String> live = recoverAll(stores[last]);
            assertEquals(List.of("KEEP/1=kept 1 1", "KEEP/2=kept 2 1", "KEEP/3=kept 3 1", "KEEP/4=kept 4 1",
                    "KEEP/5=kept 5 1", "KEEP/8=after tx 2's send 1", "KEEP/9=while " + first + " is down 1"),
                    live.stream()
                    .filter(l -> l.startsWith("KEEP/") || l.startsWith("FLOW/")).toList());
            assertTrue(live.stream().anyMatch(l -> l.startsWith("in doubt xid-1: sends [KEEP/6] consumed [] as ")),
                    "" + live);
        } finally {
            closeAll();
        }
    }

    /**
     * The active member's Raft log stays bounded however long it stays active: it builds a snapshot from its log each
     * time the entries since the latest hold {@code snapshotEveryLogBytes} (128 KiB here, in log segments of 32 KiB),
     * and the log before it is purged (before, only replicas took snapshots, and the active member's log kept every
     * entry: 3 MiB here). A replica stopped before the traffic and started after it is sent the active member's
     * snapshot (the log it lacks is purged), catches up, and, made active by a switchover, has every message kept
     * once and none of those consumed.
     */
    @Test
    @org.junit.jupiter.api.Timeout(value = 300, unit = TimeUnit.SECONDS) // 3 MiB through three members, a switchover
    void theActiveMembersLogStaysBoundedAndAReplicaStoppedMeanwhileCatchesUp(@TempDir Path dir) throws Exception {
        long fileBytes = org.wharfmq.server.Configuration.MIN_JOURNAL_FILE_BYTES;
        long snapshotBytes = 128 << 10;
        long segmentBytes = 32 << 10;
        tuning = b -> b.maxMessageLength(1 << 20).journalFileBytes(fileBytes).journalSlackBytes(fileBytes);
        timings = new ReplicationConfiguration.Timings(Duration.ofMillis(1000), Duration.ofMillis(2000),
                snapshotBytes, segmentBytes);
        startAll(dir);
        try {
            int active = takeOver();
            recoverAll(stores[active]); // as the queue manager does at its start: its journal's reclamation waits for it
            int stopped = (active + 1) % 3;
            String stoppedId = membership.members().get(stopped).id();
            long stoppedAt = members[stopped].log().appliedIndex();
            members[stopped].close();
            members[stopped] = null;
            Path activeLog = membership.members().get(active).replicationDirectory();

            byte[] body = new byte[1024];
            long sequence = 0;
            long written = 0;
            long largestLog = 0;
            List<String> kept = new ArrayList<>();
            for (int round = 1; written < 24 * snapshotBytes; round++) {
                sequence = putAndConsume(stores[active], body, sequence);
                assertNull(put(stores[active], "KEEP", round, "kept " + round));
                kept.add("KEEP/" + round + "=kept " + round + " 1");
                written += (long) ROUND * body.length;
                largestLog = Math.max(largestLog, logBytes(activeLog));
            }
            // the last snapshot is built and the log purged up to it on the member's own thread: this waits for it
            Trio.await("the active member's log to be purged to within a snapshot's bytes and three segments",
                    () -> logBytes(activeLog) <= snapshotBytes + 3 * segmentBytes);
            long built = members[active].log().snapshotsBuilt();
            System.out.println("ReplicationMemberTest: the active member's Raft log held at most " + largestLog
                    + " bytes while " + written + " bytes of messages were put and consumed; " + built
                    + " snapshots built, its log from index " + members[active].log().logStartIndex() + " in "
                    + logSegments(activeLog) + " segments of " + logBytes(activeLog) + " bytes");
            assertTrue(built >= 4, "the active member built " + built + " snapshots from its log");
            // the snapshots are built off the commit path, so on a busy machine the log runs ahead of them for a while
            // (1.2 MiB seen with other modules' tests beside it); without them it would hold every entry, 3 MiB or more
            assertTrue(largestLog <= 16 * snapshotBytes, "the active member's Raft log reached " + largestLog
                    + " bytes with snapshots every " + snapshotBytes + " bytes of log (" + written + " bytes put)");
            assertTrue(logSegments(activeLog) <= snapshotBytes / segmentBytes + 4, logSegments(activeLog) + " segments");
            assertTrue(members[active].log().logStartIndex() > stoppedAt + 1, "the stopped member's next entry ("
                    + (stoppedAt + 1) + ") was not purged: its log start is " + members[active].log().logStartIndex());

            start(stopped); // too far behind for the log: it is sent the active member's snapshot
            long committed = members[active].log().status().committedIndex();
            Trio.await("member " + stoppedId + " to catch up", () -> members[stopped].log().appliedIndex() >= committed);
            members[active].switchover(stoppedId);
            assertNotNull(members[active].fenced().get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
            int other = 3 - active - stopped;
            CompletableFuture.anyOf(members[stopped].elected(), members[other].elected())
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertFalse(members[other].elected().isDone(), "member " + other + " was elected, not " + stoppedId);
            stores[active].close();
            stores[active] = null;
            members[active].close();
            members[active] = null;
            stores[stopped] = takeOver(stopped);
            List<String> live = recoverAll(stores[stopped]).stream()
                    .filter(l -> l.startsWith("KEEP/") || l.startsWith("FLOW/")).toList();
            assertEquals(kept, live);
        } finally {
            closeAll();
        }
    }

    /** The bytes of the Raft log's segment files under a member's replication directory. */
    private static long logBytes(Path replication) {
        return logFiles(replication).mapToLong(f -> f.toFile().length()).sum();
    }

    private static long logSegments(Path replication) {
        return logFiles(replication).count();
    }

    /** The log's segment files; listed again when Ratis purged one while they were listed. */
    private static java.util.stream.Stream<Path> logFiles(Path replication) {
        for (int attempt = 1; ; attempt++) {
            try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(replication)) {
                return files.filter(f -> f.getFileName().toString().startsWith("log_")).toList().stream();
            } catch (java.io.IOException | java.io.UncheckedIOException e) {
                if (attempt == 5) {
                    throw new AssertionError("the log's files could not be listed", e);
                }
            }
        }
    }

    /** The messages {@link #putAndConsume} puts in a round. */
    private static final int ROUND = 40;

    /**
     * Puts {@link #ROUND} messages of {@code body} on queue FLOW, with the sequences after {@code last}, waits until
     * each is confirmed, and consumes them all; returns the last sequence put.
     */
    private static long putAndConsume(JournalMessageStore store, byte[] body, long last) throws Exception {
        List<CompletableFuture<Throwable>> puts = new ArrayList<>();
        List<StoredMessage> consumed = new ArrayList<>();
        for (int i = 1; i <= ROUND; i++) {
            Message m = new Message("FLOW", last + i, Unpooled.wrappedBuffer(body));
            CompletableFuture<Throwable> confirmed = new CompletableFuture<>();
            store.put(m, confirmed::complete);
            puts.add(confirmed);
            consumed.add(m);
        }
        for (CompletableFuture<Throwable> confirmed : puts) {
            assertNull(confirmed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        }
        assertNull(done(c -> store.remove(consumed, c)));
        return last + ROUND;
    }

    /** Whether every running replica's Raft log was purged after a snapshot. */
    private boolean purged(int active) {
        for (int i = 0; i < 3; i++) {
            if (i != active && members[i] != null && members[i].log().logStartIndex() <= 0) {
                return false;
            }
        }
        return true;
    }

    private static long bytesUnder(Path directory) throws java.io.IOException {
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(directory)) {
            return files.filter(java.nio.file.Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
    }

    /** Which member confirmed the large message, under which sequence number. */
    private record Confirmed(int member, long sequence) {
    }

    /**
     * Puts {@code large} on active member {@code active} until one confirms it. On a loaded machine the members may
     * elect another while it is on its way: this one is fenced and the message is not confirmed (its pieces are
     * dropped on every member, or all are committed and it is whole on every member). The fenced member
     * is restarted, to rejoin as a replica, the next one takes over, and the message is put again there under the
     * next sequence number, as a producer sends it again after losing its connection.
     */
    private Confirmed putLarge(int active, ByteBuf large) throws Exception {
        for (long sequence = 1; ; sequence++) {
            Throwable refused = put(stores[active], "LARGE", sequence, large.retainedDuplicate());
            if (refused == null) {
                return new Confirmed(active, sequence);
            }
            if (!(refused instanceof NotActiveException) || sequence == 3) {
                throw new AssertionError("the large message was not confirmed", refused);
            }
            stores[active].close();
            stores[active] = null;
            members[active].close();
            members[active] = null;
            int fenced = active;
            active = takeOver();
            start(fenced);
        }
    }

    /**
     * Many batches on the active member: messages put and consumed, some delivered again; transactions committed,
     * prepared and in doubt, and open; a queue defined and deleted.
     */
    private static void workload(JournalMessageStore active) throws Exception {
        active.queueCreated("TEMP.Q");
        assertNull(put(active, "TEMP.Q", 1, "gone with its queue"));
        assertNull(done(c -> active.remove(List.of(message("TEMP.Q", 1, "")), c)));
        active.queueDeleted("TEMP.Q");
        active.queueCreated("KEPT.Q");
        List<CompletableFuture<Throwable>> puts = new ArrayList<>();
        for (int i = 1; i <= 300; i++) {
            CompletableFuture<Throwable> confirmed = new CompletableFuture<>();
            active.put(message("WORK", i, "m" + i), confirmed::complete);
            puts.add(confirmed);
            if (i % 10 == 0) {
                active.delivered(message("WORK", i, ""), 1);
            }
        }
        for (CompletableFuture<Throwable> confirmed : puts) {
            assertNull(confirmed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        }
        for (int i = 1; i <= 270; i += 90) {
            List<StoredMessage> consumed = new ArrayList<>();
            for (int j = i; j < i + 90; j++) {
                consumed.add(message("WORK", j, ""));
            }
            assertNull(done(c -> active.remove(consumed, c)));
        }
        active.putInTransaction(1, message("WORK", 301, "sent in tx 1"));
        active.removeInTransaction(1, message("WORK", 271, ""));
        assertNull(done(c -> active.commit(1, c)));
        active.putInTransaction(2, message("WORK", 302, "sent in tx 2, in doubt"));
        active.removeInTransaction(2, message("WORK", 272, ""));
        assertNull(done(c -> active.prepare(2, "xid-2".getBytes(StandardCharsets.UTF_8), c)));
        active.putInTransaction(3, message("WORK", 303, "sent in tx 3, open"));
        assertNull(put(active, "KEPT.Q", 1, "after tx 3's send"));
    }

    /**
     * What the member that took over recovered from the state it kept as a replica, checked against crash recovery
     * of a copy of its journal as the takeover found it, and against what {@link #workload} left.
     */
    private List<String> assertRecoveredAsCrashRecoveryWould(int member, Path copy) throws Exception {
        assertEquals(0, stores[member].recordsReadAtOpen(), "the takeover read the journal back");
        List<String> live = recoverAll(stores[member]);
        ServerConfig config = ServerConfig.builder().name("TEST").dataDirectory(copy).maxMessageLength(MAX_MESSAGE_LENGTH)
                .build();
        try (JournalMessageStore crash = JournalMessageStore.open(config)) {
            assertTrue(crash.recordsReadAtOpen() > 300, "crash recovery read " + crash.recordsReadAtOpen());
            assertEquals(recoverAll(crash), live);
        }
        assertTrue(live.contains("ORDERS/1=one 1") && live.contains("ORDERS/2=two 1"), "" + live);
        assertTrue(live.contains("queue KEPT.Q 1") && live.stream().noneMatch(l -> l.contains("TEMP.Q")), "" + live);
        assertTrue(live.contains("WORK/273=m273 1") && live.contains("WORK/280=m280 2")
                && live.contains("WORK/301=sent in tx 1 1") && live.contains("KEPT.Q/1=after tx 3's send 1")
                && live.stream().noneMatch(l -> l.startsWith("WORK/271=") || l.startsWith("WORK/272=")
                        || l.startsWith("WORK/303=")), "" + live);
        assertTrue(live.stream().anyMatch(l -> l.startsWith("in doubt xid-2: sends [WORK/302] consumed "
                + "[WORK/272] as ")), "" + live);
        return live;
    }

    /** A copy of member {@code i}'s journal, in {@code to}'s. */
    private Path copyJournal(int i, Path to) throws Exception {
        Path from = membership.members().get(i).dataDirectory().resolve("journal");
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path target = to.resolve("journal").resolve(from.relativize(f).toString());
                java.nio.file.Files.createDirectories(target.getParent());
                java.nio.file.Files.copy(f, target);
            }
        }
        return to;
    }

    /** Runs {@code call} with a store completion and waits for it: null when done. */
    private static Throwable done(java.util.function.Consumer<org.wharfmq.server.store.StoreCompletion> call)
            throws Exception {
        CompletableFuture<Throwable> done = new CompletableFuture<>();
        call.accept(done::complete);
        return done.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static Message message(String queue, long sequence, String body) {
        return new Message(queue, sequence, Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
    }

    /** Everything the store recovered, one line each, in the order it came. */
    private static List<String> recoverAll(JournalMessageStore store) {
        List<String> recovered = new ArrayList<>();
        store.recover(new RecoveryTarget() {
            @Override
            public void subscriptionRecovered(org.wharfmq.server.store.SubscriptionRecord subscription) {
                recovered.add("subscription " + subscription);
            }

            @Override
            public void queueRecovered(String queueName, long lastSequence) {
                recovered.add("queue " + queueName + " " + lastSequence);
            }

            @Override
            public void messageRecovered(String queueName, long sequence, ByteBuf content, int deliveryCount) {
                recovered.add(queueName + "/" + sequence + "=" + describe(content) + " " + deliveryCount);
                content.release();
            }

            @Override
            public void transactionPrepared(org.wharfmq.server.store.PreparedTransaction transaction) {
                recovered.add("in doubt " + new String(transaction.branch(), StandardCharsets.UTF_8) + ": sends "
                        + transaction.sends().stream().map(m -> m.queueName() + "/" + m.sequence()).toList()
                        + " consumed " + transaction.consumed().stream().map(m -> m.queueName() + "/" + m.sequence())
                        .toList() + " as " + transaction.transactionId());
                transaction.release();
            }
        });
        return recovered;
    }

    /** Puts messages on one store as fast as it confirms them (64 at a time) until stopped or refused. */
    private static final class Load {
        private final JournalMessageStore store;
        private final String queue;
        private final java.util.concurrent.Semaphore window = new java.util.concurrent.Semaphore(64);
        private final java.util.concurrent.ConcurrentLinkedQueue<Long> confirmed =
                new java.util.concurrent.ConcurrentLinkedQueue<>();
        private final java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
        private volatile boolean stopped;
        private final Thread thread;
        private long next;

        Load(JournalMessageStore store, String queue, long first) {
            this.store = store;
            this.queue = queue;
            this.next = first;
            thread = new Thread(this::run, "load");
            thread.start();
        }

        private void run() {
            while (!stopped && refused.get() == 0) {
                window.acquireUninterruptibly();
                long s = ++next;
                store.put(new Message(queue, s, Unpooled.copiedBuffer("m" + s, StandardCharsets.UTF_8)), failure -> {
                    if (failure == null) {
                        confirmed.add(s);
                    } else {
                        refused.incrementAndGet();
                    }
                    window.release();
                });
            }
        }

        void awaitConfirmed(int n) {
            Trio.await(n + " messages confirmed", () -> confirmed.size() >= n);
        }

        /** Stops putting; returns the sequences confirmed so far. */
        List<Long> stop() throws InterruptedException {
            stopped = true;
            window.release(64); // a put the fenced store never answers must not hold the thread
            thread.join(WAIT.toMillis());
            return List.copyOf(confirmed);
        }

        long next() {
            return next;
        }
    }

    private void startAll(Path dir) throws Exception {
        ca = TestCertificates.ca("replication-group");
        List<Member> list = new ArrayList<>();
        for (String id : new String[] {"a", "b", "c"}) {
            list.add(new Member(id, "127.0.0.1", FreePorts.one(), dir.resolve(id)));
        }
        membership = new Membership("TEST", list);
        List<CompletableFuture<Void>> starts = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int member = i;
            starts.add(CompletableFuture.runAsync(() -> start(member)));
        }
        CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).join();
    }

    private void closeAll() throws Exception {
        for (int i = 0; i < 3; i++) {
            if (stores[i] != null) {
                stores[i].close();
            }
            if (members[i] != null) {
                members[i].close();
            }
        }
    }

    private void start(int i) {
        Member member = membership.members().get(i);
        Trio.awaitFree(member.port());
        try {
            ServerConfig config = tuning.apply(ServerConfig.builder().name("TEST")
                    .dataDirectory(member.dataDirectory())).build();
            members[i] = ReplicationMember.start(config, membership, member.id(), Trio.memberTls(ca, member.id()),
                    timings);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The queues member {@code i}'s definitions file holds. */
    private List<String> definitions(int i) {
        return QueueDefinitionFile.in(membership.members().get(i).dataDirectory()).read().queues().stream()
                .map(QueueDefinition::name).toList();
    }

    /** Waits for a running member to be elected, and makes it take over; returns its position. */
    private int takeOver() throws Exception {
        List<CompletableFuture<Void>> elected = new ArrayList<>();
        for (ReplicationMember m : members) {
            elected.add(m == null ? new CompletableFuture<>() : m.elected());
        }
        CompletableFuture.anyOf(elected.toArray(CompletableFuture[]::new)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        for (int i = 0; i < 3; i++) {
            if (elected.get(i).isDone()) {
                stores[i] = takeOver(i);
                return i;
            }
        }
        throw new AssertionError("no member elected");
    }

    /**
     * Member {@code from}, the leader, hands its leadership to the next member (an election under load, in tests that
     * need one at a known moment); returns that member's position once it is elected.
     */
    private int handLeadershipOn(int from) throws Exception {
        int next = (from + 1) % 3;
        members[from].log().transferLeadership(membership.members().get(next).id(),
                ReplicationConfiguration.CHANGE_TIMEOUT).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        members[next].elected().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        return next;
    }

    /** Member {@code i} takes over, and stops serving as soon as it is fenced, as {@code wharf server} does. */
    private JournalMessageStore takeOver(int i) throws Exception {
        JournalMessageStore store = members[i].takeOver();
        members[i].fenced().thenRun(members[i]::stoppedServing);
        return store;
    }

    /** Puts a message and waits for the store's answer: null when confirmed, else why not. */
    private static Throwable put(JournalMessageStore store, String queue, long sequence, String body)
            throws Exception {
        return put(store, queue, sequence, Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
    }

    private static Throwable put(JournalMessageStore store, String queue, long sequence, ByteBuf content)
            throws Exception {
        CompletableFuture<Throwable> done = new CompletableFuture<>();
        store.put(new Message(queue, sequence, content), done::complete);
        return done.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** {@link #LARGE_BYTES} bytes, no two neighbouring kilobytes alike. */
    private static ByteBuf largeBody() {
        ByteBuf body = Unpooled.buffer(LARGE_BYTES);
        for (int i = 0; i < LARGE_BYTES / 4; i++) {
            body.writeInt(i * 31 + 7);
        }
        return body;
    }

    /** A body as text, or a large one as its length and checksum. */
    private static String describe(ByteBuf content) {
        if (content.readableBytes() <= 1024) {
            return content.toString(StandardCharsets.UTF_8);
        }
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(content.nioBuffer());
        return content.readableBytes() + " bytes, crc " + Long.toHexString(crc.getValue());
    }

    private record Message(String queueName, long sequence, ByteBuf content) implements StoredMessage {
    }

    /** The messages the store recovered, as queue/sequence=body. */
    private static List<String> recover(JournalMessageStore store) {
        List<String> recovered = new ArrayList<>();
        store.recover(new RecoveryTarget() {
            @Override
            public void queueRecovered(String queueName, long lastSequence) {
            }

            @Override
            public void messageRecovered(String queueName, long sequence, ByteBuf content, int deliveryCount) {
                recovered.add(queueName + "/" + sequence + "=" + describe(content));
                content.release();
            }
        });
        return recovered;
    }
}
