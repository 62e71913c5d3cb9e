package org.wharfmq.perf.workload;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@code wharf perf run} was asked to do.
 *
 * @param workload       the workload
 * @param sizes          message sizes in bytes
 * @param clients        requester (or producer) counts to step through
 * @param instances      F-*: flow instances to step through (1 for the other workloads)
 * @param responders     responders (or consumers) per step; 0 = half the requesters, at least 1
 * @param queues         RR-4b, RR-5b: request queues; RR-2b, RR-5: request/reply queue pairs
 * @param channels       RR-5, RR-5b, OW-5: the channels each way between the two queue managers (1 for the others)
 * @param rate           OW-1, OW-5: messages per second per producer
 * @param runSeconds     measured seconds per step
 * @param warmupSeconds  warm-up seconds per step
 * @param timeoutSeconds receive timeout: a reply later than this is late (a loss if it never comes); 0 = scaled to the message size
 *                       ({@link #timeoutSeconds(int)})
 * @param persistent     persistent messages (responders commit each round trip)
 * @param correlationPerThread requesters use one correlation id per thread ({@code -co true}) instead of
 *                       selecting each reply by the request's message id
 * @param tls            the TLS engine ({@code jdk} or {@code openssl}) of a TLS listener the clients connect to, with
 *                       a throwaway self-signed certificate; null = plain TCP
 * @param security       {@code rules}: the server has a user the clients log in as and permission rules that check
 *                       every producer, consumer and anonymous send ({@link BenchmarkSecurity}); null = no users
 * @param metrics        {@code on}: the server runs its metrics and HTTP listener; {@code scrape}: and scrapes its
 *                       own {@code /metrics} every second ({@link ServerMain}); null = neither
 * @param url            a running Wharf to use instead of starting one (null = start one)
 * @param output         where the report goes
 * @param jvmOptions     options for child JVMs
 * @param inProcess      run everything in this JVM (tests; not a measurement)
 */
public record RunSettings(Workload workload, List<Integer> sizes, List<Integer> clients, List<Integer> instances, int responders, int queues,
                          int channels,
                          double rate, int runSeconds, int warmupSeconds, int timeoutSeconds, boolean persistent,
                          boolean correlationPerThread, String tls, String security, String metrics,
                          String url, Path output, List<String> jvmOptions, boolean inProcess) {

    /** The receive timeout when {@code --timeout} is not given, for messages under 1 MiB. */
    static final int DEFAULT_TIMEOUT_SECONDS = 10;

    /**
     * What the default timeout adds per MiB of message. A reply that misses its timeout is not only a loss: the
     * requester sends its next request behind the late one, which the server still processes, so one miss makes
     * the next ones miss too and a whole step is reported lost. An 8 MiB XML parse takes 130-140 ms of CPU in a
     * plain loop, but on a 2-core machine under a load of 20-30 the round trips of F-PARSE with two requesters
     * (one flow instance, serving one at a time) took p50 0.4-2 s and p99 1-10 s, the first, cold parses the
     * slowest (4 MiB: p99 10.3 s); a flat 10 s lost every request of such a step.
     */
    static final int TIMEOUT_SECONDS_PER_MIB = 4;

    /**
     * The receive timeout for messages of {@code size} bytes: {@code --timeout} if given, else
     * {@value #DEFAULT_TIMEOUT_SECONDS} s plus {@value #TIMEOUT_SECONDS_PER_MIB} s per whole MiB (8 MiB: 42 s).
     */
    public int timeoutSeconds(int size) {
        if (timeoutSeconds > 0) {
            return timeoutSeconds;
        }
        return DEFAULT_TIMEOUT_SECONDS + (size >> 20) * TIMEOUT_SECONDS_PER_MIB;
    }
}
