package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What a server's process gets beyond the runner's JVM options for a step's messages. */
class TargetTest {

    /**
     * ActiveMQ Classic, whose 1 GB heap ran out on 100 MB persistent round trips, gets a heap of twenty times the
     * message in whole GiB where the runner's -Xmx gives less; not for smaller or non-persistent messages, not where
     * -Xmx already gives as much, and never for the other servers.
     */
    @Test
    void activeMqClassicGetsTheHeapLargePersistentMessagesNeed() {
        List<String> oneGig = List.of("-Xmx1g");
        assertEquals(List.of("-Xmx2g"), Target.CLASSIC.serverJvmOptions(true, 100_000_000, oneGig));
        assertEquals(List.of(), Target.CLASSIC.serverJvmOptions(true, 20 << 20, oneGig), "20 MB ran in 1 GB");
        assertEquals(List.of(), Target.CLASSIC.serverJvmOptions(false, 100_000_000, oneGig), "KahaDB is not in the way");
        assertEquals(List.of(), Target.CLASSIC.serverJvmOptions(true, 100_000_000, List.of("-Xmx1g", "-Xmx3g")));
        assertEquals(List.of(), Target.CLASSIC.serverJvmOptions(true, 100_000_000, List.of()), "the JVM's default heap");
        assertEquals(List.of("-Xmx2g"), Target.CLASSIC.serverJvmOptions(true, 100_000_000, List.of("-Xmx1536m")));
        for (Target t : List.of(Target.WHARF, Target.ARTEMIS, Target.REPLICATED)) {
            assertEquals(List.of(), t.serverJvmOptions(true, 100_000_000, oneGig), t.toString());
        }
    }
}
