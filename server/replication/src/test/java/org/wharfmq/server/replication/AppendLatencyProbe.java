package org.wharfmq.server.replication;

import org.apache.ratis.grpc.server.GrpcServicesImpl;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.util.CodeInjectionForTesting;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Not a test: the replicated log's commit latency alone, without the broker (docs/performance-log.md, "Replicated
 * queue manager"). Three members in this JVM ({@link Trio}); one thread appends batches of {@code bytes} as the journal
 * writer does, keeping {@code inFlight} appends outstanding (a closed loop: a new one as soon as one is committed);
 * prints the rate, the latency percentiles, the JVM's CPU per commit (the three members' together) and the appends
 * and heartbeats the active member sent per commit (to both replicas) of each {@code seconds}-long round, and the
 * machine's load ({@code /proc/loadavg}) as it ended.
 *
 * <pre>java -cp ... org.wharfmq.server.replication.AppendLatencyProbe DIR inFlight bytes seconds rounds</pre>
 */
public final class AppendLatencyProbe {

    private AppendLatencyProbe() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Files.createDirectories(Path.of(args[0]));
        int inFlight = Integer.parseInt(args[1]);
        int bytes = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        int rounds = Integer.parseInt(args[4]);
        com.sun.management.OperatingSystemMXBean cpu =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        AtomicLong heartbeats = new AtomicLong();
        AtomicLong appends = new AtomicLong();
        CodeInjectionForTesting.put(GrpcServicesImpl.GRPC_SEND_SERVER_REQUEST, (local, remote, sent) -> {
            if (sent.length > 0 && sent[0] instanceof AppendEntriesRequestProto request) {
                (request.getEntriesCount() == 0 ? heartbeats : appends).incrementAndGet();
            }
            return false;
        });
        try (Trio trio = new Trio(Files.createTempDirectory(root, "probe"), ReplicationConfiguration.Timings.DEFAULT)) {
            ReplicatedLog log = trio.log(trio.awaitActive());
            ByteBuffer batch = RecordingSink.batch("x".repeat(bytes - 4)); // one record, framed: bytes in all
            for (int round = 0; round < rounds; round++) {
                long[] latencies = new long[1 << 22];
                AtomicInteger done = new AtomicInteger();
                Semaphore slots = new Semaphore(inFlight);
                long cpuBefore = cpu.getProcessCpuTime();
                long heartbeatsBefore = heartbeats.get();
                long appendsBefore = appends.get();
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
                while (System.nanoTime() < end) {
                    slots.acquire();
                    long start = System.nanoTime();
                    log.append(batch.duplicate()).whenComplete((index, failure) -> {
                        int n = done.getAndIncrement();
                        if (n < latencies.length) {
                            latencies[n] = System.nanoTime() - start;
                        }
                        slots.release();
                    });
                }
                slots.acquire(inFlight);
                slots.release(inFlight);
                long cpuUsed = cpu.getProcessCpuTime() - cpuBefore;
                int n = Math.min(done.get(), latencies.length);
                long[] sorted = Arrays.copyOf(latencies, n);
                Arrays.sort(sorted);
                System.out.printf("round %d: %d appends in flight, %d bytes: %.0f commits/s, p50 %.2f ms, p90 %.2f ms,"
                                + " p99 %.2f ms, %.0f us CPU per commit, per commit %.2f appends and %.2f heartbeats sent,"
                        + " load %s%n", round, inFlight, bytes,
                        n / (double) seconds, sorted[n / 2] / 1e6, sorted[n * 9 / 10] / 1e6,
                        sorted[n * 99 / 100] / 1e6, cpuUsed / 1e3 / n, (appends.get() - appendsBefore) / (double) n,
                        (heartbeats.get() - heartbeatsBefore) / (double) n, load());
            }
        }
    }

    /** The machine's 1-minute load average, or "?" where there is no /proc/loadavg. */
    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (java.io.IOException e) {
            return "?";
        }
    }
}
