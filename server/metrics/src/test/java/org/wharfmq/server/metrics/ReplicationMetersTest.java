package org.wharfmq.server.metrics;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.management.ReplicationState;

import java.lang.ref.WeakReference;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The replication gauges read the member's state for as long as the registry lives, even when nobody keeps the
 * {@link ReplicationMeters} that bound them: the active instance's metrics bind it and drop it, and Micrometer's
 * gauges hold their object weakly unless told otherwise (they then read NaN once it is collected: ReplicatedFailoverTest
 * saw it in CI).
 */
class ReplicationMetersTest {

    @Test
    void theGaugesStillReadTheStateAfterTheMetersObjectIsDropped() {
        ReplicationState state = new ReplicationState("TEST", "a", "LEADER", "a", 4, 120, 120, 2, 0,
                Map.of("a", 0L, "b", 0L, "c", 7L), Map.of("a", "h:1", "b", "h:2", "c", "h:3"), Map.of("b", 20L),
                Map.of("b", 0L, "c", 4096L), -1, -1, 100, 90, 0, java.util.Set.of("c"));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        WeakReference<ReplicationMeters> dropped = bindAndDrop(registry, state);
        for (int i = 0; i < 5; i++) {
            System.gc(); // held weakly, the meters object would go now (held by its gauges, it stays)
        }
        assertEquals(2.0, registry.get("wharf.replication.in.sync").gauge().value());
        assertEquals(4.0, registry.get("wharf.replication.term").gauge().value());
        assertEquals(1.0, registry.get("wharf.replication.leader").gauge().value());
        assertEquals(3.0, registry.get("wharf.replication.members").gauge().value());
        assertEquals(4096.0, registry.get("wharf.replication.behind.max").gauge().value());
        assertEquals(-1.0, registry.get("wharf.replication.replica.journal.files").gauge().value());
        assertEquals(90.0, registry.get("wharf.replication.log.start.index").gauge().value());
        assertEquals(0.0, registry.get("wharf.replication.snapshots.installed").gauge().value());
        assertEquals(1.0, registry.get("wharf.replication.unreachable").gauge().value());
    }

    private static WeakReference<ReplicationMeters> bindAndDrop(SimpleMeterRegistry registry, ReplicationState state) {
        ReplicationMeters meters = new ReplicationMeters(() -> state);
        meters.bindTo(registry);
        return new WeakReference<>(meters);
    }
}
