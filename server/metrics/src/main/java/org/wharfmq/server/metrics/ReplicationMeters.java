package org.wharfmq.server.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.wharfmq.server.management.ReplicationState;

import java.util.Collections;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * A member of a replicated queue manager, as it sees its group (docs/resilience.md, docs/operations.md "Metrics"):
 * bound on the active instance's metrics and on a replica's own ({@code wharf_replication_*}), so that any member can
 * be asked. Reads the state at most once a second ({@link Snapshot}). Its gauges hold it strongly: whoever binds it
 * need not keep it (Micrometer's gauges hold their object weakly by default, and read NaN once it is collected).
 */
public final class ReplicationMeters implements MeterBinder {

    private final Snapshot<ReplicationState> state;

    /** Meters of {@code state}, this member's place in its group (never null). */
    public ReplicationMeters(Supplier<ReplicationState> state) {
        this.state = new Snapshot<>(state);
    }

    /** Takes the state anew, before a scrape. */
    public void refresh() {
        state.refresh();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        gauge(registry, "wharf.replication.leader", "1 when this member is the active instance (the Raft leader), "
                + "else 0", s -> "LEADER".equals(s.role()) ? 1 : 0);
        gauge(registry, "wharf.replication.members", "The group's members, as this member's log has them",
                s -> s.members().size());
        gauge(registry, "wharf.replication.in.sync", "Members whose log holds every committed entry, as this member "
                + "last heard and that answer it (itself counting; on a replica, itself only)",
                ReplicationState::inSync);
        gauge(registry, "wharf.replication.unreachable", "On the active member, the members that have not answered it "
                + "within the election timeout: down, or cut off from it (0 on a replica)",
                s -> s.unreachable().size());
        gauge(registry, "wharf.replication.term", "The Raft term (it rises with each election)",
                ReplicationState::term);
        gauge(registry, "wharf.replication.committed.index", "The last log entry this member knows a majority has",
                ReplicationState::committedIndex);
        gauge(registry, "wharf.replication.applied.index", "The last log entry applied here",
                ReplicationState::appliedIndex);
        gauge(registry, "wharf.replication.log.start.index", "The first log entry this member's Raft log still holds "
                + "(above 0 once purged after a snapshot)", ReplicationState::logStartIndex);
        gauge(registry, "wharf.replication.snapshots.installed", "Snapshots the active member sent this member and it "
                + "installed since it started (it was behind the active member's purged log)",
                ReplicationState::snapshotsInstalled);
        Gauge.builder("wharf.replication.backlog", this, m -> m.state.get().backlogBytes()).baseUnit("bytes")
                .description("Bytes appended that a majority has not yet confirmed (0 on a replica)")
                .strongReference(true).register(registry);
        Gauge.builder("wharf.replication.behind.max", this, m -> maxBehindBytes(m.state.get())).baseUnit("bytes")
                .description("On the active member, the bytes of what it committed that the replica furthest behind "
                        + "lacks (0: every replica in sync); 0 on a replica")
                .strongReference(true).register(registry);
        Gauge.builder("wharf.replication.replica.journal", this, m -> m.state.get().journalBytes()).baseUnit("bytes")
                .description("On a replica, the bytes of records in its journal (reclaimed as on the active member); "
                        + "-1 on the active member (its wharf_journal_size_bytes)")
                .strongReference(true).register(registry);
        gauge(registry, "wharf.replication.replica.journal.files", "On a replica, its journal's files; -1 on the "
                + "active member", ReplicationState::journalFiles);
        Gauge.builder("wharf.replication.last.contact", this, ReplicationMeters::lastContactSeconds)
                .baseUnit("seconds").description("On a replica, since the active member's last call; on the active "
                        + "member, since the replica heard from least lately last answered; -1: none (an election)")
                .strongReference(true).register(registry);
    }

    private void gauge(MeterRegistry registry, String name, String description, ToDoubleFunction<ReplicationState> f) {
        Gauge.builder(name, this, m -> f.applyAsDouble(m.state.get())).description(description).strongReference(true)
                .register(registry);
    }

    private static double maxBehindBytes(ReplicationState s) {
        return s.behindBytes().values().stream().mapToLong(Long::longValue).max().orElse(0);
    }

    private static double lastContactSeconds(ReplicationMeters m) {
        var contact = m.state.get().lastContactMillis().values();
        return contact.isEmpty() ? -1 : Collections.max(contact) / 1000.0;
    }
}
