package org.wharfmq.server.metrics;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.wharfmq.server.management.ConnectionTotals;
import org.wharfmq.server.management.JournalStatus;
import org.wharfmq.server.management.Management;
import org.wharfmq.server.management.ServerStatus;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The queue manager's own meters: connections, sessions, consumers, producers and the bytes they moved; the journal
 * (size, records, syncs, a histogram of sync latency and one of batch size); queues and subscriptions; on a
 * replicated queue manager's active instance, its place in the group (in sync, backlog, indexes). Counters are
 * read from the management view's totals at scrape time ({@link Snapshot}); the two histograms are recorded once per
 * journal sync on the journal's sync thread ({@link Management#observeJournalSyncs}), never per message.
 */
final class ServerMeters implements MeterBinder {

    /** The sync latencies the histogram counts separately, besides Micrometer's own buckets: 100 µs to 1 s. */
    private static final Duration SYNC_MIN = Duration.ofNanos(100_000);
    private static final Duration SYNC_MAX = Duration.ofSeconds(1);
    /** Largest batch the batch-size histogram tells apart: the writer's own batch limit is about this. */
    private static final double BATCH_MAX = 10_000;

    private final Management management;
    private final Snapshot<ConnectionTotals> connections;
    private final Snapshot<JournalStatus> journal;
    private final Snapshot<ServerStatus> server;
    /** The highest byte counts reported: a connection ending while the totals are taken is missed once, and a
     * counter must not go back. Guarded by this. */
    private long maxBytesIn;
    private long maxBytesOut;

    ServerMeters(Management management) {
        this.management = management;
        this.connections = new Snapshot<>(management::connectionTotals);
        this.journal = new Snapshot<>(management::journal);
        this.server = new Snapshot<>(management::server);
    }

    /** Takes the totals anew, before a scrape. */
    void refresh() {
        connections.refresh();
        journal.refresh();
        server.refresh();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        connectionGauge(registry, "wharf.connections", "Client connections past their handshake, in-VM included",
                ConnectionTotals::open);
        connectionGauge(registry, "wharf.sessions", "Open sessions", ConnectionTotals::sessions);
        connectionGauge(registry, "wharf.consumers", "Open consumers (queues' and subscriptions')",
                ConnectionTotals::consumers);
        connectionGauge(registry, "wharf.producers", "Open producers", ConnectionTotals::producers);
        FunctionCounter.builder("wharf.connections.opened", this, m -> m.connections.get().opened())
                .description("Connections that completed their handshake").register(registry);
        FunctionCounter.builder("wharf.network.received", this, ServerMeters::bytesIn).baseUnit("bytes")
                .description("Bytes read from clients").register(registry);
        FunctionCounter.builder("wharf.network.sent", this, ServerMeters::bytesOut).baseUnit("bytes")
                .description("Bytes written to clients").register(registry);

        ServerStatus status = management.server();
        Gauge.builder("wharf.info", () -> 1).tags("queue_manager", status.name(), "version", status.version())
                .description("Always 1: the queue manager's name and version, as labels").register(registry);
        Gauge.builder("wharf.queues", this, m -> m.server.get().queues())
                .description("Queues: defined, created by use, temporary").register(registry);
        Gauge.builder("wharf.subscriptions", this, m -> m.server.get().subscriptions())
                .description("Topic subscriptions").register(registry);
        Gauge.builder("wharf.memory.direct.used", this, m -> m.server.get().directUsedBytes()).baseUnit("bytes")
                .description("Direct memory held by the buffer pool messages live in").register(registry);

        if (journal.get() != null) {
            bindJournal(registry);
        }
        if (status.replication() != null) {
            new ReplicationMeters(() -> server.get().replication()).bindTo(registry);
        }
    }

    private void bindJournal(MeterRegistry registry) {
        Gauge.builder("wharf.journal.size", this, m -> m.journal.get().bytes()).baseUnit("bytes")
                .description("Bytes of records in the journal, live and dead").register(registry);
        journalCounter(registry, "wharf.journal.records", "Records appended to the journal", JournalStatus::records);
        journalCounter(registry, "wharf.journal.syncs", "Journal syncs (durability os: batches written)",
                JournalStatus::syncs);
        journalCounter(registry, "wharf.journal.synced.entries", "Journal entries made durable by syncs",
                JournalStatus::syncedEntries);
        journalCounter(registry, "wharf.journal.reclaimed.files", "Journal files deleted by reclamation",
                JournalStatus::reclaimedFiles);
        Timer syncs = Timer.builder("wharf.journal.sync").description("Time of each journal sync (fsync)")
                .publishPercentileHistogram().minimumExpectedValue(SYNC_MIN).maximumExpectedValue(SYNC_MAX)
                .register(registry);
        DistributionSummary batches = DistributionSummary.builder("wharf.journal.batch").baseUnit("entries")
                .description("Journal entries each sync made durable").publishPercentileHistogram()
                .minimumExpectedValue(1.0).maximumExpectedValue(BATCH_MAX).register(registry);
        management.observeJournalSyncs((nanos, entries) -> {
            syncs.record(nanos, TimeUnit.NANOSECONDS);
            batches.record(entries);
        });
    }

    /** Stops recording the journal's syncs. */
    void close() {
        management.observeJournalSyncs(org.wharfmq.server.store.JournalSyncObserver.NONE);
    }

    private void connectionGauge(MeterRegistry registry, String name, String description,
                                 ToDoubleFunction<ConnectionTotals> f) {
        Gauge.builder(name, this, m -> f.applyAsDouble(m.connections.get())).description(description)
                .register(registry);
    }

    private void journalCounter(MeterRegistry registry, String name, String description,
                                ToDoubleFunction<JournalStatus> f) {
        FunctionCounter.builder(name, this, m -> f.applyAsDouble(m.journal.get())).description(description)
                .register(registry);
    }

    private synchronized double bytesIn() {
        maxBytesIn = Math.max(maxBytesIn, connections.get().bytesIn());
        return maxBytesIn;
    }

    private synchronized double bytesOut() {
        maxBytesOut = Math.max(maxBytesOut, connections.get().bytesOut());
        return maxBytesOut;
    }
}
