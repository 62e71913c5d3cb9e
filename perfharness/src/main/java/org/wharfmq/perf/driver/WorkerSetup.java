package org.wharfmq.perf.driver;

import org.wharfmq.perf.options.PerfOptions;

/**
 * What a worker is built from: the options, the provider, the run it belongs to, its index among the run's
 * threads and its name; {@code processId} and {@code runId} make its correlation ids and source keys unique
 * across processes and runs. {@code connections} gives it its connection (shared with {@code -sc > 1});
 * {@code window} is the publishers' flow window ({@code -fw}), null when off.
 */
record WorkerSetup(PerfOptions options, Provider provider, RunControl control, Bodies bodies, int index, String name,
                   String processId, String runId, SharedConnections connections, PublishWindow window) {
}
