package org.wharfmq.server.replication;

import org.apache.ratis.metrics.LongCounter;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.metrics.Timekeeper;
import org.apache.ratis.util.TimeDuration;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Ratis's metrics, kept in memory: Ratis needs a {@link MetricRegistries} implementation to start (found through
 * {@code ServiceLoader}), and its own ({@code ratis-metrics-default}) brings Dropwizard Metrics. Counters count and
 * gauges are kept, so that the replication's status can read them; timers measure nothing. No reporters.
 */
public final class RaftMetrics extends MetricRegistries {

    private final Map<MetricRegistryInfo, Registry> registries = new ConcurrentHashMap<>();

    @Override
    public void clear() {
        registries.clear();
    }

    @Override
    public RatisMetricRegistry create(MetricRegistryInfo info) {
        return registries.computeIfAbsent(info, Registry::new);
    }

    @Override
    public boolean remove(MetricRegistryInfo key) {
        return registries.remove(key) != null;
    }

    @Override
    public Optional<RatisMetricRegistry> get(MetricRegistryInfo info) {
        return Optional.ofNullable(registries.get(info));
    }

    @Override
    public Set<MetricRegistryInfo> getMetricRegistryInfos() {
        return Set.copyOf(registries.keySet());
    }

    @Override
    public Collection<RatisMetricRegistry> getMetricRegistries() {
        return List.copyOf(registries.values());
    }

    @Override
    public void addReporterRegistration(Consumer<RatisMetricRegistry> reporterRegistration,
                                        Consumer<RatisMetricRegistry> stopReporter) {
        // no reporters: the status is read, not pushed
    }

    @Override
    public void enableJmxReporter() {
    }

    @Override
    public void enableConsoleReporter(TimeDuration consoleReportRate) {
    }

    private static final class Registry implements RatisMetricRegistry {
        private static final Timekeeper.Context UNTIMED = () -> 0L;

        private final MetricRegistryInfo info;
        private final Map<String, Counter> counters = new ConcurrentHashMap<>();
        private final Map<String, Supplier<?>> gauges = new ConcurrentHashMap<>();

        Registry(MetricRegistryInfo info) {
            this.info = info;
        }

        @Override
        public Timekeeper timer(String name) {
            return () -> UNTIMED;
        }

        @Override
        public LongCounter counter(String name) {
            return counters.computeIfAbsent(name, n -> new Counter());
        }

        @Override
        public boolean remove(String name) {
            return counters.remove(name) != null | gauges.remove(name) != null;
        }

        @Override
        public <T> void gauge(String name, Supplier<Supplier<T>> gaugeSupplier) {
            gauges.put(name, gaugeSupplier.get());
        }

        @Override
        public MetricRegistryInfo getMetricRegistryInfo() {
            return info;
        }
    }

    private static final class Counter implements LongCounter {
        private final LongAdder count = new LongAdder();

        @Override
        public void inc(long n) {
            count.add(n);
        }

        @Override
        public void dec(long n) {
            count.add(-n);
        }

        @Override
        public long getCount() {
            return count.sum();
        }
    }
}
