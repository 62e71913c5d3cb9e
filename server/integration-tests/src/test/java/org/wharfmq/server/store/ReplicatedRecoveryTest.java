package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 35's recoveries of a replicated queue manager's three {@code wharf server --replica} processes
 * ({@link ReplicatedGroup}, on loopback), with transacted persistent messages ({@link CommittedMessages}): a replica
 * whose data directory was wiped, once a process without the group's credentials was refused in its place, rejoins,
 * catches up, and made the active member holds every committed message once; and the three killed together
 * (SIGKILL) with transactions open, started again, elect an active member that holds every committed message once and
 * nothing rolled back or left open. Every wait is for a member's answer ({@code wharf admin}) or line, none for a time.
 */
@Tag("slow")
class ReplicatedRecoveryTest {

    private static final String[] IDS = ReplicatedGroup.IDS;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void aWipedReplicaRejoinsCatchesUpAndTakesOverWithEveryCommittedMessageAndOneWithoutCredentialsIsRefused()
            throws Exception {
        try (ReplicatedGroup group = ReplicatedGroup.onLoopback(dir)) {
            group.startAll();
            int active = group.awaitActiveWith("in sync\\s+3/3");
            int wiped = (active + 1) % 3;
            CommittedMessages messages = new CommittedMessages(group, active);
            try {
                messages.commit(10);
                messages.rollBack(3);
                messages.consume(12);
                // the replica's disk is lost: killed, its data directory deleted
                group.member(wiped).kill();
                group.wipe(wiped);
                // work it never saw, committed by the two left
                messages.commit(10);
                messages.rollBack(3);
                messages.consume(8);
            } finally {
                messages.close();
            }

            // a process in its place without the group's credentials (a certificate of another CA) is refused by the
            // active member, which says so, and gets nothing: the group stays two of three in sync
            try (ServerProcess outsider = group.startWithoutCredentials(wiped)) {
                String refusal = group.member(active).awaitLine("Replication refused",
                        ReplicatedGroup.ELECTION.toSeconds());
                assertTrue(refusal.contains("'O=Outsider,CN=" + IDS[wiped] + "'")
                        && refusal.contains("replication.tls.trustStore"), refusal);
                String status = group.awaitStatus(active, "in sync\\s+2/3");
                assertFalse(Pattern.compile("\\b" + IDS[wiped] + " in sync").matcher(status).find(), status);
                // it answers for itself: no active member heard of, nothing applied
                String own = group.awaitStatus(wiped, "member " + IDS[wiped] + " of group TEST");
                assertFalse(own.contains("active: " + IDS[active]), own);
                assertTrue(own.contains("last applied") && ReplicatedGroup.applied(own) <= 0, own);
                outsider.kill();
            }
            group.wipe(wiped); // what the outsider wrote there

            // the member itself, started again on its empty data directory, rejoins and catches up from the log; asked
            // itself, it has applied all that the active member, showing it in sync, had committed
            long started = System.nanoTime();
            group.start(wiped);
            active = group.awaitActiveWith("in sync\\s+3/3", ReplicatedGroup.MEMBER_START);
            long committed = ReplicatedGroup.committed(group.awaitStatus(active, "\\b" + IDS[wiped] + " in sync"));
            group.awaitAnswer(wiped, out -> out.contains("member " + IDS[wiped] + " of group TEST, FOLLOWER (active: ")
                    && ReplicatedGroup.applied(out) >= committed, "applied " + committed, "display", "server");
            long inSync = System.nanoTime();

            // made the active member, it serves its own journal, rebuilt from the log: every committed message once
            group.switchOver(wiped);
            long switched = System.nanoTime();
            messages.assertHeldBy(group, wiped);
            System.out.printf("ReplicatedRecoveryTest: wiped member %s in sync and applied to index %d %.0f ms after its"
                    + " start, active %.0f ms after that%n", IDS[wiped], committed, (inSync - started) / 1e6,
                    (switched - inSync) / 1e6);
        }
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void allThreeKilledTogetherAndStartedAgainHoldEveryCommittedMessageOnceAndNothingElse() throws Exception {
        try (ReplicatedGroup group = ReplicatedGroup.onLoopback(dir)) {
            group.startAll();
            int active = group.awaitActiveWith("in sync\\s+3/3");
            CommittedMessages messages = new CommittedMessages(group, active);
            try {
                messages.commit(20);
                messages.rollBack(4);
                messages.consume(30);
                messages.commit(5);
                messages.rollBack(1);
                // in flight at the kill: a batch sent in a transaction never committed, and committed messages
                // received in a transaction never committed (they stay the queue's)
                messages.leaveOpen();
                messages.receiveOpen(10);
                messages.awaitSent(group, active);
                group.killAll();
            } finally {
                messages.close();
            }
            long started = System.nanoTime();
            active = group.startAll();
            System.out.printf("ReplicatedRecoveryTest: the three started again, %s active after %.0f ms%n", IDS[active],
                    (System.nanoTime() - started) / 1e6);
            messages.assertHeldBy(group, active);
        }
    }
}
