package org.wharfmq.server.store;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.it.NamespaceNetwork;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Issue 35's partition made in the kernel's network rather than in the test: the three members of a replicated queue
 * manager each in a network namespace of its own ({@link NamespaceNetwork}: started with {@code ip netns exec}, joined
 * by veth pairs to a bridge), the clients of {@link ReconnectWorkload} at work. The active member's link to the bridge
 * goes down: it stops taking work and follows as a replica again in its process, the other two elect a new active
 * member and the clients go on there; the old one is back in sync once the link is up again
 * ({@link ReplicatedGroup#partition}); nothing
 * committed is lost, nothing delivered twice unmarked. Skipped (an assumption naming why) where network namespaces
 * cannot be made: not root, or no {@code ip} (iproute2; .ci/run installs it).
 */
@Tag("slow")
class ReplicatedNamespacePartitionTest {

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void theActiveMemberCutOffByItsLinkGoingDownStopsServingAndRejoinsOnceItIsUp() throws Exception {
        String unavailable = NamespaceNetwork.whyUnavailable();
        Assumptions.assumeTrue(unavailable == null, unavailable);
        ReplicatedGroup group = ReplicatedGroup.configure(dir, (d, ids, ports) -> NamespaceNetwork.open(d, ids));
        ReconnectWorkload workload = new ReconnectWorkload(group.addresses());
        try (ReplicatedGroup members = group) {
            int active = members.startAll();
            workload.start();
            workload.awaitRound(members.member(active));
            members.partition(workload, "ReplicatedNamespacePartitionTest");
            workload.finish();
        } finally {
            workload.stopNow();
        }
        workload.verify();
        System.out.println("ReplicatedNamespacePartitionTest: " + workload.report());
    }
}
