package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 35: a replica that was down while the active member's Raft log was purged past its last entry catches up by
 * installing the active member's snapshot (Ratis's snapshot of the journal), not from the log, as three
 * {@code wharf server --replica} processes ({@link ReplicatedGroup}). The members snapshot every MiB of log and keep
 * log files of a MiB ({@code snapshotLogBytes}, {@code logFileBytes}: docs/resilience.md, "Snapshots, and what bounds
 * the log"), so a few MiB of committed persistent work purge it. Every wait is for a member's answer
 * ({@code wharf admin display server}): the active member's log start past the stopped replica's last entry before it
 * is started again, the replica's own count of snapshots installed after, never a time.
 */
@Tag("slow")
class ReplicatedSnapshotCatchUpTest {

    private static final String[] IDS = ReplicatedGroup.IDS;
    /** The members' snapshot interval and log file size: the least a log file may be. */
    private static final long MIB = 1L << 20;
    /** {@code display server}'s "log from index N, latest snapshot at M[, K installed ...]". */
    private static final Pattern LOG = Pattern.compile(
            "log\\s+from index (-?\\d+), latest snapshot (?:none|at (-?\\d+))(?:, (\\d+) installed from the active)?");
    private static final String FILL_QUEUE = "FILL.Q";
    private static final int FILL_BODY = 16 << 10;
    private static final int FILL_BATCH = 16;
    /** Rounds of filler (each {@value #FILL_BATCH} messages of 16 KiB sent and consumed) before the test gives up. */
    private static final int MAX_FILL_ROUNDS = 400;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 900, unit = TimeUnit.SECONDS)
    void aReplicaBehindThePurgedLogInstallsTheSnapshotAndTakesOverWithEveryCommittedMessageOnce() throws Exception {
        try (ReplicatedGroup group = ReplicatedGroup.onLoopback(dir, "snapshotLogBytes: " + MIB,
                "logFileBytes: " + MIB)) {
            group.startAll();
            int active = group.awaitActiveWith("in sync\\s+3/3");
            int stopped = (active + 1) % 3;
            CommittedMessages messages = new CommittedMessages(group, active);
            long lastBeforeStop;
            String behind;
            try (Connection filler = new WharfConnectionFactory(group.url(active) + "?reconnectAttempts=0")
                    .createConnection()) {
                filler.start();
                Session session = filler.createSession(true, Session.SESSION_TRANSACTED);
                MessageProducer producer = session.createProducer(session.createQueue(FILL_QUEUE));
                producer.setDeliveryMode(DeliveryMode.PERSISTENT);
                MessageConsumer consumer = session.createConsumer(session.createQueue(FILL_QUEUE));
                byte[] body = new byte[FILL_BODY];

                messages.commit(6);
                messages.rollBack(1);
                messages.consume(7);
                // the replica stops (killed); everything it may hold is at most what the active member committed
                // by now (every send and commit above was confirmed: nothing of the active member's is in flight)
                group.member(stopped).kill();
                lastBeforeStop = ReplicatedGroup.committed(group.awaitStatus(active, "last applied"));

                // committed persistent work it never saw, until the active member's log no longer holds its next
                // entry: a snapshot built from the log, and the log purged up to it
                int round = 0;
                long logStart = -1;
                while (logStart <= lastBeforeStop + 1) {
                    if (round == MAX_FILL_ROUNDS) {
                        fail("the active member's log still starts at " + logStart + " after " + round + " rounds of "
                                + FILL_BATCH * FILL_BODY + " bytes (the stopped replica's next entry is "
                                + (lastBeforeStop + 1) + "):\n" + group.awaitStatus(active, "replication"));
                    }
                    for (int m = 0; m < FILL_BATCH; m++) {
                        BytesMessage fill = session.createBytesMessage();
                        fill.writeBytes(body);
                        producer.send(fill);
                    }
                    session.commit();
                    for (int m = 0; m < FILL_BATCH; m++) {
                        assertNotNull(consumer.receive(ReplicatedGroup.ELECTION.toMillis()), "filler " + m);
                    }
                    session.commit();
                    if (round % 8 == 0) { // numbered work on both sides of every snapshot
                        messages.commit(2);
                        messages.rollBack(1);
                        messages.consume(1);
                    }
                    round++;
                    if (round % 4 == 0) {
                        logStart = logStart(group.awaitStatus(active, "log\\s+from index"));
                    }
                }
                messages.commit(3);
                // the active member shows the stopped replica down, not catching up, and how far behind it is; two
                // of three in sync
                behind = group.awaitStatus(active, "\\b" + IDS[stopped]
                        + " unreachable \\(down or cut off\\): last answer [^,)]+ ago, \\d+ behind");
                assertTrue(Pattern.compile("in sync\\s+2/3").matcher(behind).find(), behind);
                System.out.printf("ReplicatedSnapshotCatchUpTest: %s stopped after index %d; %d rounds of filler; the "
                        + "active member %s's log starts at %d%n", IDS[stopped], lastBeforeStop, round, IDS[active],
                        logStart);
            } finally {
                messages.close();
            }

            // started again, it is behind the purged log: it installs the active member's snapshot, applies the log
            // after it, and is in sync
            long started = System.nanoTime();
            String[] catchingUp = new String[1];
            Pattern stoppedBehind = Pattern.compile("\\b" + IDS[stopped] + " catching up: \\d+ behind[^)]*");
            group.start(stopped);
            active = group.awaitActiveWith("in sync\\s+3/3", ReplicatedGroup.MEMBER_START, status -> {
                Matcher m = stoppedBehind.matcher(status);
                if (m.find()) {
                    catchingUp[0] = m.group();
                }
            });
            long committed = ReplicatedGroup.committed(group.awaitStatus(active, "\\b" + IDS[stopped] + " in sync"));
            String own = group.awaitAnswer(stopped, out -> out.contains("member " + IDS[stopped]
                    + " of group TEST, FOLLOWER (active: ") && ReplicatedGroup.applied(out) >= committed
                    && installed(out) >= 1, "a snapshot installed and applied " + committed, "display", "server");
            Matcher log = LOG.matcher(own);
            assertTrue(log.find(), own);
            assertTrue(log.group(2) != null && Long.parseLong(log.group(2)) > lastBeforeStop, "the replica's latest "
                    + "snapshot is past what it held when it stopped (" + lastBeforeStop + "):\n" + own);
            long inSync = System.nanoTime();
            System.out.printf("ReplicatedSnapshotCatchUpTest: %s in sync %.0f ms after its start (last seen on the "
                    + "active member while it started: %s), its own status: %s%n", IDS[stopped],
                    (inSync - started) / 1e6, catchingUp[0], log.group());

            // made the active member, it serves what the snapshot and the log after it gave: every committed message
            // not consumed once, in order, nothing rolled back or consumed
            group.switchOver(stopped);
            messages.assertHeldBy(group, stopped);
        }
    }

    /** The first index of the member's log, from its {@code display server} answer. */
    private static long logStart(String status) {
        Matcher m = LOG.matcher(status);
        assertTrue(m.find(), status);
        return Long.parseLong(m.group(1));
    }

    /** The snapshots the member installed since it started, from its {@code display server} answer (0: none). */
    private static long installed(String status) {
        Matcher m = LOG.matcher(status);
        return m.find() && m.group(3) != null ? Long.parseLong(m.group(3)) : 0;
    }
}
