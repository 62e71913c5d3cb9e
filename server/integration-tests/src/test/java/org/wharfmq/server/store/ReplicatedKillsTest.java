package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Issue 35's twenty kills ({@code -Dwharf.it.replicatedKills=20}; the suite runs 2, about a minute and a half): a replicated
 * queue manager of three member processes ({@link ReplicatedGroup}) under the
 * clients of {@link ReconnectWorkload}, whose transacted producer and consumer each hold a transaction open at every
 * kill. Time after time, the active member is killed with SIGKILL, another is elected and every client completes an
 * operation with it, and the killed one is started again: the active member's status shows the three in sync before
 * the next kill, so that a quorum always remains.
 * At the end every message whose commit the producer saw is consumed exactly once (twice only for a batch whose commit
 * was in doubt, which the producer sent again); a batch rolled back at a kill, which the producer sends again, is
 * never consumed twice (its rolled-back copy never comes back); no delivery after the first is unmarked. Prints the
 * times from each kill to the clients working again, median and maximum (issue 35's measure).
 */
@Tag("slow")
class ReplicatedKillsTest {

    private static final int KILLS = Integer.getInteger("wharf.it.replicatedKills", 2);

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 1500, unit = TimeUnit.SECONDS)
    void nothingCommittedIsLostOrDoubledAcrossRepeatedKillsOfTheActiveMember() throws Exception {
        ReplicatedGroup group = ReplicatedGroup.onLoopback(dir);
        ReconnectWorkload workload = new ReconnectWorkload(group.addresses());
        List<ReconnectWorkload.Recovery> recoveries = new ArrayList<>();
        List<String> actives = new ArrayList<>();
        try (ReplicatedGroup members = group) {
            int active = members.startAll();
            actives.add(ReplicatedGroup.IDS[active]);
            workload.start();
            workload.awaitRound(members.member(active));
            for (int kill = 1; kill <= KILLS; kill++) {
                int killed = active;
                ServerProcess ended = members.member(killed);
                ReconnectWorkload.Outage outage = workload.kill(ended);
                outage.release();
                active = members.awaitActive(ended);
                actives.add(ReplicatedGroup.IDS[active]);
                recoveries.add(outage.awaitWorking(members.member(active)));
                members.start(killed);
                // the next kill only once it is back in sync: the two left then make a quorum
                members.awaitStatus(active, "in sync\\s+3/3");
            }
            workload.finish();
        } finally {
            workload.stopNow();
        }
        workload.verify();
        System.out.println("ReplicatedKillsTest: active in turn " + String.join(" ", actives) + "; "
                + ReconnectWorkload.summary(recoveries) + "; " + workload.report());
    }
}
