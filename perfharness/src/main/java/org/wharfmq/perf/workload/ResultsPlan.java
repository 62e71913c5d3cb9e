package org.wharfmq.perf.workload;

import org.wharfmq.perf.report.PubSubSeedRows;
import org.wharfmq.perf.report.SeedRows;

import java.util.List;

/**
 * The rows of the results table ({@code wharf perf report}): each seed workload once, at one message size and one
 * client count near Wharf's peak on a small machine, so the whole set runs in about an hour. A row runs on
 * Wharf and, where the workload's clients are all over TCP, on each built-in peer with the same options.
 */
final class ResultsPlan {

    /** What a row compares. */
    enum Kind {
        /** The median rate of one step ({@code wharf perf run}). */
        RATE,
        /** RR-RATED's clients served: its requesters stepped until the median response passes 1 s. */
        RATED,
        /** {@code wharf perf footprint}'s live heap per idle connection. */
        MEMORY_PER_CONNECTION,
        /** {@code wharf perf footprint}'s live heap per defined queue. */
        MEMORY_PER_QUEUE;

        boolean footprint() {
            return this == MEMORY_PER_CONNECTION || this == MEMORY_PER_QUEUE;
        }
    }

    /** The id {@code --only} names the footprint's rows by. */
    static final String FOOTPRINT = "FOOTPRINT";

    /**
     * One row.
     *
     * @param label    what the row measures, as the table shows it
     * @param workload the workload; null for the footprint's rows
     * @param options  the runner's options for it ({@code wharf perf run WORKLOAD options...}; the footprint's:
     *                 {@code wharf perf footprint options...})
     * @param peers    whether the built-in peers run it too (their clients are all over TCP)
     * @param seedRow  the seed's published row for reference, or null
     * @param kind     what the row compares
     */
    record Row(String label, Workload workload, List<String> options, boolean peers, String seedRow, Kind kind) {

        Row(String label, Workload workload, List<String> options, boolean peers, String seedRow) {
            this(label, workload, options, peers, seedRow, workload == Workload.RR_RATED ? Kind.RATED : Kind.RATE);
        }

        /** The id {@code --only} chooses the row by: its workload's, or {@value #FOOTPRINT}. */
        String id() {
            return kind.footprint() ? FOOTPRINT : workload.id();
        }

        /** A short name for the row's own report directory. */
        String slug() {
            return label.replaceAll("[^A-Za-z0-9]+", "-").replaceAll("(^-|-$)", "");
        }
    }

    /**
     * The footprint's items: as many queues as seed 004's tests reached by the hundred, and fewer connections than
     * ActiveMQ Classic's stock limit of 1,000 (its footprint would fail past it).
     */
    static final int FOOTPRINT_QUEUES = 2000;
    static final int FOOTPRINT_CONNECTIONS = 900;
    /** RR-RATED's requester steps in {@code --quick}, which checks that the rows run. */
    static final String QUICK_RATED_REQUESTERS = "10,20";
    /** The footprint's items in {@code --quick}. */
    static final int QUICK_FOOTPRINT_ITEMS = 20;

    static final List<Row> ROWS = List.of(
            new Row("RR-1 2 KB, 8 requesters", Workload.RR_1,
                    List.of("--sizes", "2k", "--requesters", "8"), false, seed("RR-1", 2048, false)),
            new Row("RR-2 2 KB, 8 requesters", Workload.RR_2,
                    List.of("--sizes", "2k", "--requesters", "8"), false, seed("RR-2", 2048, false)),
            new Row("RR-2 2 MB, 8 requesters", Workload.RR_2,
                    List.of("--sizes", "2m", "--requesters", "8"), false, seed("RR-2", 2 << 20, false)),
            new Row("RR-4 2 KB, 8 requesters, reply by request id", Workload.RR_4,
                    List.of("--sizes", "2k", "--requesters", "8", "--responders", "4"), true, seed("RR-4", 2048, false)),
            new Row("RR-4 2 KB, 8 requesters, one correlation id per requester", Workload.RR_4,
                    List.of("--sizes", "2k", "--requesters", "8", "--responders", "4", "--correlation", "thread"), true, null),
            new Row("RR-4 20 KB, 8 requesters", Workload.RR_4,
                    List.of("--sizes", "20k", "--requesters", "8", "--responders", "4"), true, null),
            new Row("RR-4b 2 KB, 8 requesters, 4 request queues", Workload.RR_4B,
                    List.of("--sizes", "2k", "--requesters", "8", "--responders", "4", "--queues", "4"), true, null),
            new Row("RR-5 2 KB, 8 requesters, two queue managers, 4 queue pairs over one channel each way", Workload.RR_5,
                    List.of("--sizes", "2k", "--requesters", "8", "--responders", "4", "--queues", "4"), true,
                    seed("RR-5", 2048, false)),
            new Row("RR-4 2 KB persistent, 32 requesters, 16 transacted responders", Workload.RR_4,
                    List.of("--sizes", "2k", "--requesters", "32", "--responders", "16", "--persistent"), true,
                    seed("RR-1", 2048, true)),
            new Row("RR-SHORT 2 KB, 4 requesters (a connection per round trip)", Workload.RR_SHORT,
                    List.of("--sizes", "2k", "--requesters", "4"), true, null),
            new Row("CONNECT, 4 clients (connections/s)", Workload.CONNECT,
                    List.of("--requesters", "4"), true, null),
            new Row("PS-N 2 KB, 100 subscribers (deliveries/s)", Workload.PS_N,
                    List.of("--sizes", "2k", "--subscribers", "100"), true, pubSubSeed(100)),
            new Row("F-PASS 4 KB, 20 requesters", Workload.F_PASS,
                    List.of("--sizes", "4k"), false, flowSeed("F-PASS", 4096, false)),
            new Row("F-PASS 4 KB persistent (F-PERSIST)", Workload.F_PASS,
                    List.of("--sizes", "4k", "--persistent"), false, flowSeed("F-PASS", 4096, true)),
            new Row("F-PARSE 4 KB", Workload.F_PARSE, List.of("--sizes", "4k"), false, flowSeed("F-PARSE", 4096, false)),
            // the seed's large flow rows: two requesters keep the one flow instance busy (one message parsed while the
            // other travels); the reply timeout scales with the size (RunSettings.timeoutSeconds(int))
            new Row("F-PARSE 4 MB, 2 requesters", Workload.F_PARSE, List.of("--sizes", "4m", "--requesters", "2"), false,
                    flowSeed("F-PARSE", 4 << 20, false)),
            new Row("F-PARSE 8 MB, 2 requesters", Workload.F_PARSE, List.of("--sizes", "8m", "--requesters", "2"), false,
                    flowSeed("F-PARSE", 8 << 20, false)),
            new Row("F-XSLT 4 KB", Workload.F_XSLT, List.of("--sizes", "4k"), false, flowSeed("F-XSLT", 4096, false)),
            new Row("F-CSV-PARSE 4 KB", Workload.F_CSV_PARSE, List.of("--sizes", "4k"), false,
                    flowSeed("F-CSV-PARSE", 4096, false)),
            new Row("F-FIXED-PARSE 4 KB", Workload.F_FIXED_PARSE, List.of("--sizes", "4k"), false,
                    flowSeed("F-FIXED-PARSE", 4096, false)),
            // the integration nodes (issue 36): beside their plain loops (a file copy, a file append, a plain JMS loop)
            new Row("F-FILE 4 KB (files in)", Workload.F_FILE, List.of("--sizes", "4k"), false, flowSeed("F-FILE", 4096, false)),
            new Row("F-FILE-OUT 4 KB (files out)", Workload.F_FILE_OUT, List.of("--sizes", "4k"), false,
                    flowSeed("F-FILE-OUT", 4096, false)),
            new Row("F-JMS 4 KB (another JMS provider)", Workload.F_JMS, List.of("--sizes", "4k"), false,
                    flowSeed("F-JMS", 4096, false)),
            // ActiveMQ Classic's stock 1,000 connections end its stepping at 1,000 requesters
            new Row("RR-RATED 2 KB, 1.5 round trips/s per requester, 250 / 1,000 / 2,000 requesters (clients served)",
                    Workload.RR_RATED, List.of("--sizes", "2k", "--requesters", "250,1000,2000"), true,
                    "35,000 (seed 004 3.8.2: MQI client bindings, 2KB non-persistent, 1.5 round trips/s per client)"),
            new Row(String.format(java.util.Locale.ROOT, "Memory per idle connection (%,d connections)", FOOTPRINT_CONNECTIONS), null,
                    List.of("--connections", Integer.toString(FOOTPRINT_CONNECTIONS), "--queues", Integer.toString(FOOTPRINT_QUEUES)),
                    true, "97.93 KB (seed 004 3.6: memory per additional client, MQ V8.0)", Kind.MEMORY_PER_CONNECTION),
            new Row(String.format(java.util.Locale.ROOT, "Memory per defined queue (%,d queues, a 16-byte message each)", FOOTPRINT_QUEUES),
                    null, List.of("--connections", Integer.toString(FOOTPRINT_CONNECTIONS), "--queues", Integer.toString(FOOTPRINT_QUEUES)),
                    true, "32.85 KB (seed 004 3.6: memory per additional queue, MQ V8.0)", Kind.MEMORY_PER_QUEUE));

    private ResultsPlan() {
    }

    private static String seed(String workload, int size, boolean persistent) {
        SeedRows.Row r = SeedRows.find(workload, size, persistent);
        return r == null ? null : String.format(java.util.Locale.ROOT, "%,d (%s, %d clients)", r.maxRate(), r.test(), r.clients());
    }

    private static String flowSeed(String workload, int size, boolean persistent) {
        SeedRows.FlowRow r = SeedRows.findFlow(workload, size, persistent);
        // the large rows' rates are below 2 a second: whole numbers would show 1.37 and 0.69 both as 1
        return r == null ? null : String.format(java.util.Locale.ROOT, r.rate() < 10 ? "%.2f (seed 002: %s)" : "%,.0f (seed 002: %s)",
                r.rate(), r.test());
    }

    private static String pubSubSeed(int subscribers) {
        PubSubSeedRows.Row r = PubSubSeedRows.find(subscribers, false);
        return r == null ? null : String.format(java.util.Locale.ROOT, "%,.0f (seed 002, 4 KB, %d subscribers)", r.rate(), subscribers);
    }
}
