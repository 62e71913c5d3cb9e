package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --peer replicated}: a short persistent RR-4 of 2 MB messages (the RR tables' large column; each record goes
 * through the replication log in pieces) on Wharf as a replicated queue manager, three {@code wharf server --replica}
 * processes started by {@link ReplicatedServerMain} (its own child JVM): every request answered once, through the
 * member elected active; and a workload whose clients run inside the server is refused, naming why.
 */
// three replication members in child JVMs, whose start the runner itself allows 300 s: with the other test JVM
// beside it under a load of 30-45 the default 120 s ran out
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ReplicatedPeerTest {

    @Test
    @Tag("slow")
    void persistentRr4RunsOnTheActiveMemberAndEveryRoundTripCompletes(@TempDir Path out) throws Exception {
        RunSettings settings = new RunSettings(Workload.RR_4, List.of(2 << 20), List.of(2), List.of(1), 0, 2, 1, 100, 1, 1, 0,
                true, false, null, null, null, null, out, List.of("-Xmx256m"), false);
        List<StepResult> steps = RunCommand.execute(settings, List.of(Target.REPLICATED),
                new ChildJvmLauncher(settings.jvmOptions(), line -> { }), line -> { });
        assertEquals(1, steps.size());
        StepResult s = steps.get(0);
        assertNull(s.unavailable());
        assertTrue(s.passed(), s.problems().toString());
        assertEquals("Wharf replicated", s.target());
        assertEquals(2 << 20, s.messageSize());
        assertTrue(s.meanRate() > 0 && s.latencyMicros().count() > 0, "round trips were counted and timed");
    }

    @Test
    void inVmWorkloadsAreRefusedNamingTheReplicatedQueueManager() {
        UnsupportedOperationException refused = org.junit.jupiter.api.Assertions.assertThrows(
                UnsupportedOperationException.class, () -> Target.REPLICATED.checkRuns(Workload.RR_1, true, null,
                        null, null));
        assertTrue(refused.getMessage().contains("the replicated queue manager are not supported yet: use RR-4, RR-4b "
                + "or OW-1"), refused.getMessage());
        assertEquals(List.of("replicated"), Target.REPLICATED.serverCommand(List.of(), true, null, 1, null, null, null));
    }
}
