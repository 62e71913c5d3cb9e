package org.wharfmq.perf.workload;

import org.wharfmq.perf.flow.BenchmarkFlow;
import org.wharfmq.perf.options.OptionException;
import org.wharfmq.perf.options.PerfOptions;
import org.wharfmq.perf.report.PubSubSeedRows;
import org.wharfmq.perf.report.SeedRows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rows of the results table ({@code wharf perf report}): every seed workload (RR-3 is RR-1's run) at one client
 * count near Wharf's peak on a small machine, at a small message size and at the seeds' large ones (request/reply:
 * 2 MB, and 20 MB and 100 MB past the seeds; flows: seed 002's 4 MB and 8 MB rows, persistent and not, wherever it
 * has them). A row runs on Wharf and, where the workload's clients are all over TCP, on each built-in peer with the
 * same options.
 */
final class ResultsPlan {

    /** What a row compares. */
    enum Kind {
        /** The median rate of one step ({@code wharf perf run}). */
        RATE,
        /** RR-RATED's clients served: its requesters stepped until a step does not serve them ({@link RatedSteps#served}). */
        RATED,
        /** {@code wharf perf footprint}'s live heap per idle connection. */
        MEMORY_PER_CONNECTION,
        /** {@code wharf perf footprint}'s live heap per defined queue. */
        MEMORY_PER_QUEUE;

        boolean footprint() {
            return this == MEMORY_PER_CONNECTION || this == MEMORY_PER_QUEUE;
        }
    }

    /** The id {@code --rows} names the footprint's rows by. */
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

        /** The id {@code --rows} chooses the row by (besides its number): its workload's, or {@value #FOOTPRINT}. */
        String id() {
            return kind.footprint() ? FOOTPRINT : workload.id();
        }

        /** A short name for the row's own report directory. */
        String slug() {
            return label.replaceAll("[^A-Za-z0-9]+", "-").replaceAll("(^-|-$)", "");
        }

        /**
         * About how long the row takes, in seconds, with {@code peerTargets} beside Wharf, when it runs alone: its runs
         * ({@link #runsSeconds}) and its flow's plain loops.
         */
        long estimateSeconds(int warmup, int runLength, List<Target> peerTargets, boolean quick) {
            return runsSeconds(warmup, runLength, peerTargets, quick) + loopsSeconds(warmup, runLength, new HashSet<>());
        }

        /**
         * About how long the row's runs take, in seconds, with {@code peerTargets} beside Wharf (where the row runs them;
         * of them only Artemis runs two queue managers, ActiveMQ Classic's step is n/a at once): each run's warm-up,
         * measured period and {@link #overheadSeconds()} of starting and checking, RR-RATED's connections, PS-T's dummy
         * subscriptions; the footprint's measurements. A guide for planning, from quiet runs on a 2-core machine.
         */
        long runsSeconds(int warmup, int runLength, List<Target> peerTargets, boolean quick) {
            List<Target> targets = new ArrayList<>(List.of(Target.WHARF));
            if (peers) {
                targets.addAll(workload != null && workload.twoQueueManagers()
                        ? peerTargets.stream().filter(t -> t == Target.ARTEMIS).toList() : peerTargets);
            }
            if (kind.footprint()) { // one measurement per server for both memory rows: half of it each
                return (long) targets.size() * (quick ? QUICK_FOOTPRINT_SECONDS : FOOTPRINT_SECONDS) / 2;
            }
            long seconds = 0;
            for (Target target : targets) {
                seconds += Math.round(dummies() * DUMMY_SUBSCRIPTION_SECONDS);
                for (int clients : ratedSteps(quick, target)) {
                    seconds += warmup + runLength + overheadSeconds() + Math.round(clients * RATED_SECONDS_PER_REQUESTER);
                }
            }
            return seconds;
        }

        /** Seconds a run of this row takes besides its warm-up and measured period. */
        int overheadSeconds() {
            return workload.twoQueueManagers() ? TWO_QUEUE_MANAGER_RUN_OVERHEAD_SECONDS : RUN_OVERHEAD_SECONDS;
        }

        /**
         * About how long the row's flow's plain loops take, in seconds ({@link PlainLoopTimings}): each loop's warm-up
         * and measured time, a loop bound by disk syncs twice (before and after the flow's step), none for a loop
         * {@code timed} already holds (an earlier row of the report timed it), which then holds this row's loops too.
         */
        long loopsSeconds(int warmup, int runLength, Set<PlainLoopTimings.Key> timed) {
            BenchmarkFlow flow = workload == null ? null : workload.flow();
            if (flow == null || !flow.hasCeiling()) {
                return 0;
            }
            long warmupMillis = Math.min(warmup, RunCommand.CEILING_MAX_WARMUP_SECONDS) * 1000L;
            long runMillis = Math.min(runLength, RunCommand.CEILING_MAX_SECONDS) * 1000L;
            long oneTiming = (warmupMillis + runMillis) / 1000;
            long seconds = 0;
            for (PlainLoopTimings.Loop loop : flow.hasJmsApplicationLoop() ? PlainLoopTimings.Loop.values()
                    : new PlainLoopTimings.Loop[] {PlainLoopTimings.Loop.PLAIN}) {
                if (!PlainLoopTimings.reusable(flow, loop, persistent())) {
                    seconds += 2 * oneTiming; // before and after the flow's step
                } else if (timed.add(PlainLoopTimings.key(flow, loop, size(), persistent(), warmupMillis, runMillis))) {
                    seconds += oneTiming;
                }
            }
            return seconds;
        }

        /** The row's message size in bytes ({@code --sizes}, one value in the table's rows). */
        int size() {
            int at = options.indexOf("--sizes");
            return at < 0 ? 0 : PerfOptions.parseSize(options.get(at + 1), "--sizes");
        }

        /** Whether the row runs persistent messages on every server. */
        boolean persistent() {
            return options.contains("--persistent") || workload != null && workload.alwaysPersistent();
        }

        /** PS-T's dummy subscriptions ({@code --dummies}, one value in the table's rows), else 0. */
        private int dummies() {
            int at = options.indexOf("--dummies");
            return at < 0 ? 0 : Integer.parseInt(options.get(at + 1));
        }

        /**
         * RR-RATED's requester steps that {@code target} is expected to run (every one {@code --quick} runs; else up to
         * the first at or past {@link ResultsPlan#RATED_EXPECTED_STOP}'s, where its stepping stopped before); one step of no rated
         * clients for the others.
         */
        private List<Integer> ratedSteps(boolean quick, Target target) {
            if (kind != Kind.RATED) {
                return List.of(0);
            }
            String given = quick ? QUICK_RATED_REQUESTERS : options.get(options.indexOf("--requesters") + 1);
            List<Integer> steps = Arrays.stream(given.split(",")).map(Integer::valueOf).toList();
            int stop = quick ? Integer.MAX_VALUE : RATED_EXPECTED_STOP.getOrDefault(target, Integer.MAX_VALUE);
            List<Integer> expected = new ArrayList<>();
            for (int clients : steps) {
                expected.add(clients);
                if (clients >= stop) {
                    break;
                }
            }
            return expected;
        }
    }

    /**
     * Seconds a run takes besides its warm-up and measured period: a fresh server and its client JVMs started, the
     * drivers stopped, the checks after. Quietly 2 to 5 s on 2 cores (2026-12-05, main {@code 5b92b8a3}, load under 1:
     * RR-1 2 MB 2 s, RR-2 2 MB 3 s, RR-4 2 KB 4 s on Wharf, 5 s on Artemis, 4 s on ActiveMQ Classic, a flow's run 4 s).
     */
    static final int RUN_OVERHEAD_SECONDS = 5;
    /**
     * The same for a run of two queue managers (RR-5, RR-5b, OW-5): two servers, their channels' start (quietly RR-5
     * 2 KB 8 s on Wharf, 7 s on Artemis).
     */
    static final int TWO_QUEUE_MANAGER_RUN_OVERHEAD_SECONDS = 8;
    /**
     * Seconds an RR-RATED step takes per requester besides its warm-up, measured period and {@link #RUN_OVERHEAD_SECONDS}:
     * its requester JVMs started and connected 8 at a time each, a step that did not serve its clients waiting for its
     * late replies. Quietly (main {@code 22fd3df0}, 2026-12-06, row 103's ten steps in 10 min 28 s) a step of 250 to 4,000
     * requesters took 57 to 73 s with a 30 s warm-up and 20 s measured: 56 s and 0.0043 s per requester (Wharf's 4,000
     * step: its clock started 40 s after the step did, its late replies took 12 s after it ended). A busy machine takes
     * far longer (0.02 to 0.05 s per requester at load 20 to 140, session 38).
     */
    static final double RATED_SECONDS_PER_REQUESTER = 0.005;
    /**
     * The step at which each server's RR-RATED stepping stops on a quiet 2-core machine, for the estimate of the row's
     * time (a server stops at its first step at or past it). In the last quiet run (main {@code 22fd3df0}, 2026-12-06)
     * Artemis and ActiveMQ Classic stopped at 2,000 (6.5 s medians) and Wharf at 4,000, its requester JVMs' waiting
     * requesters spending their CPU on wake-ups (since fixed in the client: at 4,000 on a busy machine they carried
     * 5,430 of the 6,000 round trips/s asked, at 185 us per round trip, against 1,610 at 982 us): Wharf is taken to
     * stop at 8,000 now, whose 12,000 round trips/s its requester JVMs cannot carry on two cores.
     */
    static final Map<Target, Integer> RATED_EXPECTED_STOP = Map.of(Target.WHARF, 8000, Target.ARTEMIS, 2000,
            Target.CLASSIC, 2000);
    /**
     * The rated row's requester steps: 250 (which ActiveMQ Classic serves), then doubling past the thousands until the
     * median passes 1 s or the next step is past a limit of the machine ({@link RatedLimits}).
     */
    static final String RATED_ROW_REQUESTERS = "250,1000,2000,4000,8000,16000,32000";
    /**
     * Seconds a server takes to confirm one of PS-T's dummy subscriptions: 10,000 took Artemis about 2 min 30 s at load
     * 45 (its whole PS-T step 3 min 40 s, ActiveMQ Classic's 4 min 20 s; the estimate is the peers').
     */
    static final double DUMMY_SUBSCRIPTION_SECONDS = 0.015;
    /** Seconds a footprint takes per server: its queues and connections made, then heap dumps and RSS read. */
    static final int FOOTPRINT_SECONDS = 120;
    /** The same in {@code --quick}. */
    static final int QUICK_FOOTPRINT_SECONDS = 30;

    /**
     * About how long each of {@code rows} takes, in seconds, run one after the other in one report: a flow's plain loop
     * that an earlier row of them times is not timed again ({@link PlainLoopTimings}).
     */
    static Map<Row, Long> estimates(List<Row> rows, int warmup, int runLength, List<Target> peerTargets, boolean quick) {
        Map<Row, Long> estimates = new LinkedHashMap<>();
        Set<PlainLoopTimings.Key> timed = new HashSet<>();
        for (Row row : rows) {
            estimates.put(row, row.runsSeconds(warmup, runLength, peerTargets, quick) + row.loopsSeconds(warmup, runLength, timed));
        }
        return estimates;
    }

    /**
     * The rows {@code items} choose, in the table's order: each item a row number as {@code --list} shows them
     * ({@code 7}), a range of them ({@code 20-31}), a workload id (its every row: {@code RR-4}) or
     * {@value #FOOTPRINT} (the memory rows). No items: every row.
     */
    static List<Row> select(List<String> items) {
        if (items.isEmpty()) {
            return ROWS;
        }
        Set<Row> chosen = new HashSet<>();
        for (String item : items) {
            Matcher range = RANGE.matcher(item);
            if (range.matches()) {
                int from = Integer.parseInt(range.group(1));
                int to = range.group(2) == null ? from : Integer.parseInt(range.group(2));
                if (from < 1 || to > ROWS.size() || from > to) {
                    throw new OptionException("--rows " + item + ": the table's rows are numbered 1 to " + ROWS.size()
                            + " (see wharf perf report --list)");
                }
                chosen.addAll(ROWS.subList(from - 1, to));
                continue;
            }
            String id = item.equalsIgnoreCase(FOOTPRINT) ? FOOTPRINT : Workload.parse(item).id();
            List<Row> ofId = ROWS.stream().filter(r -> r.id().equals(id)).toList();
            if (ofId.isEmpty()) {
                throw new OptionException("--rows " + item + ": the results table has no row of this workload; its workloads are "
                        + String.join(", ", ROWS.stream().map(Row::id).distinct().toList()) + " (see wharf perf report --list)");
            }
            chosen.addAll(ofId);
        }
        return ROWS.stream().filter(chosen::contains).toList();
    }

    private static final Pattern RANGE = Pattern.compile("(\\d+)(?:-(\\d+))?");

    /** The row's number in the table, from 1, as {@code --list} shows it and {@code --rows} takes it. */
    static int number(Row row) {
        return ROWS.indexOf(row) + 1;
    }

    /**
     * The footprint's items: as many queues as seed 004's tests reached by the hundred, and 900 connections (first
     * chosen under ActiveMQ Classic's stock limit of 1,000, kept so that the rows compare with their earlier runs).
     */
    static final int FOOTPRINT_QUEUES = 2000;
    static final int FOOTPRINT_CONNECTIONS = 900;
    /** RR-RATED's requester steps in {@code --quick}, which checks that the rows run. */
    static final String QUICK_RATED_REQUESTERS = "10,20";
    /** The footprint's items in {@code --quick}. */
    static final int QUICK_FOOTPRINT_ITEMS = 20;

    /** Requesters of the 20 MB rows: four 20 MB round trips in flight keep a small server busy. */
    static final int TWENTY_MB_REQUESTERS = 4;
    /**
     * Requesters of the 100 MB rows: two, each with a responder, so that a request and a reply of each are at most in
     * the server at once (400 MB, within the default budget of a 1 GB server's direct memory).
     */
    static final int HUNDRED_MB_REQUESTERS = 2;
    /** The 100 MB body: 100 MB decimal, as a 100 MiB body is past the server's maxMessageLength with its headers. */
    static final String HUNDRED_MB = "100000000";

    /**
     * Flow workloads added after the table's rows were numbered (F-DB-ROUTE, session 42): their rows, at 4 KB and the
     * seed's large sizes, come last, so that the rows before keep the numbers reports and performance-log.md cite.
     */
    static final List<Workload> ADDED_LATER = List.of(Workload.F_DB_ROUTE);

    static final List<Row> ROWS = rows();

    private static List<Row> rows() {
        List<Row> rows = new ArrayList<>(List.of(
            new Row("RR-1 2 KB, 8 requesters", Workload.RR_1,
                    List.of("--sizes", "2k", "--requesters", "8"), false, seed("RR-1", 2048, false)),
            new Row("RR-1 2 MB, 8 requesters", Workload.RR_1,
                    List.of("--sizes", "2m", "--requesters", "8"), false, seed("RR-1", 2 << 20, false)),
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
            // the seed published no 2 MB RR-4 row (its JMS tables stop at 200 KB)
            new Row("RR-4 2 MB, 8 requesters", Workload.RR_4,
                    List.of("--sizes", "2m", "--requesters", "8", "--responders", "4"), true, null),
            new Row("RR-4b 2 KB, 8 requesters, 4 request queues", Workload.RR_4B,
                    List.of("--sizes", "2k", "--requesters", "8", "--responders", "4", "--queues", "4"), true, null),
            new Row("RR-5 2 KB, 8 requesters, two queue managers, 4 queue pairs over one channel each way", Workload.RR_5,
                    List.of("--sizes", "2k", "--requesters", "8", "--responders", "4", "--queues", "4"), true,
                    seed("RR-5", 2048, false)),
            new Row("RR-5 2 MB, 8 requesters, two queue managers, 4 queue pairs over one channel each way", Workload.RR_5,
                    List.of("--sizes", "2m", "--requesters", "8", "--responders", "4", "--queues", "4"), true,
                    seed("RR-5", 2 << 20, false)),
            // the seed's persistent request/reply rows are RR-1's (local bindings) only
            new Row("RR-4 2 KB persistent, 32 requesters, 16 transacted responders", Workload.RR_4,
                    List.of("--sizes", "2k", "--requesters", "32", "--responders", "16", "--persistent"), true,
                    seed("RR-1", 2048, true)),
            new Row("RR-4 2 MB persistent, 8 requesters, 4 transacted responders", Workload.RR_4,
                    List.of("--sizes", "2m", "--requesters", "8", "--responders", "4", "--persistent"), true,
                    seed("RR-1", 2 << 20, true)),
            // past the seeds' sizes (their request/reply tables stop at 2 MB): no row for reference
            new Row("RR-4 20 MB, 4 requesters", Workload.RR_4, large("20m", TWENTY_MB_REQUESTERS, false), true, null),
            new Row("RR-4 20 MB persistent, 4 requesters, 4 transacted responders", Workload.RR_4,
                    large("20m", TWENTY_MB_REQUESTERS, true), true, null),
            new Row("RR-4 100 MB (100e6 B), 2 requesters", Workload.RR_4, large(HUNDRED_MB, HUNDRED_MB_REQUESTERS, false), true, null),
            new Row("RR-4 100 MB (100e6 B) persistent, 2 requesters, 2 transacted responders", Workload.RR_4,
                    large(HUNDRED_MB, HUNDRED_MB_REQUESTERS, true), true, null),
            new Row("RR-SHORT 2 KB, 4 requesters (a connection per round trip)", Workload.RR_SHORT,
                    List.of("--sizes", "2k", "--requesters", "4"), true, null),
            new Row("CONNECT, 4 clients (connections/s)", Workload.CONNECT,
                    List.of("--requesters", "4"), true, null),
            new Row("PS-N 2 KB, 100 subscribers (deliveries/s)", Workload.PS_N,
                    List.of("--sizes", "2k", "--subscribers", "100"), true, pubSubSeed(100, false)),
            // four subscriber JVMs of 250, 40 connections: under ActiveMQ Classic's stock 1,000
            new Row("PS-N 2 KB, 1,000 subscribers (deliveries/s)", Workload.PS_N,
                    List.of("--sizes", "2k", "--subscribers", "1000"), true, PubSubSeedRows.THOUSAND_SUBSCRIBERS),
            new Row("F-PASS 4 KB, 20 requesters", Workload.F_PASS,
                    List.of("--sizes", "4k"), false, flowSeed("F-PASS", 4096, false)),
            new Row("F-PASS 4 KB persistent (F-PERSIST)", Workload.F_PASS,
                    List.of("--sizes", "4k", "--persistent"), false, flowSeed("F-PASS", 4096, true)),
            new Row("F-PARSE 4 KB", Workload.F_PARSE, List.of("--sizes", "4k"), false, flowSeed("F-PARSE", 4096, false)),
            new Row("F-XSLT 4 KB", Workload.F_XSLT, List.of("--sizes", "4k"), false, flowSeed("F-XSLT", 4096, false)),
            new Row("F-CSV-PARSE 4 KB", Workload.F_CSV_PARSE, List.of("--sizes", "4k"), false,
                    flowSeed("F-CSV-PARSE", 4096, false)),
            new Row("F-FIXED-PARSE 4 KB", Workload.F_FIXED_PARSE, List.of("--sizes", "4k"), false,
                    flowSeed("F-FIXED-PARSE", 4096, false)),
            // the integration nodes (issue 36): beside their plain loops (a file copy, a JMS loop with a file append, a plain JMS loop)
            new Row("F-FILE 4 KB (files in)", Workload.F_FILE, List.of("--sizes", "4k"), false, flowSeed("F-FILE", 4096, false)),
            new Row("F-FILE-OUT 4 KB (files out)", Workload.F_FILE_OUT, List.of("--sizes", "4k"), false,
                    flowSeed("F-FILE-OUT", 4096, false)),
            new Row("F-JMS 4 KB (another JMS provider)", Workload.F_JMS, List.of("--sizes", "4k"), false,
                    flowSeed("F-JMS", 4096, false))));
        rows.addAll(largeFlowRows(w -> !ADDED_LATER.contains(w)));
        rows.addAll(List.of(
            new Row("RR-RATED 2 KB, 1.5 round trips/s per requester, 250 requesters doubling until the median passes 1 s "
                    + "(clients served)", Workload.RR_RATED, List.of("--sizes", "2k", "--requesters", RATED_ROW_REQUESTERS), true,
                    "35,000 (seed 004 3.8.2: MQI client bindings, 2KB non-persistent, 1.5 round trips/s per client)"),
            new Row(String.format(Locale.ROOT, "Memory per idle connection (%,d connections)", FOOTPRINT_CONNECTIONS), null,
                    List.of("--connections", Integer.toString(FOOTPRINT_CONNECTIONS), "--queues", Integer.toString(FOOTPRINT_QUEUES)),
                    true, "97.93 KB (seed 004 3.6: memory per additional client, MQ V8.0)", Kind.MEMORY_PER_CONNECTION),
            new Row(String.format(Locale.ROOT, "Memory per defined queue (%,d queues, a 16-byte message each)", FOOTPRINT_QUEUES),
                    null, List.of("--connections", Integer.toString(FOOTPRINT_CONNECTIONS), "--queues", Integer.toString(FOOTPRINT_QUEUES)),
                    true, "32.85 KB (seed 004 3.6: memory per additional queue, MQ V8.0)", Kind.MEMORY_PER_QUEUE)));
        rows.addAll(otherSeedWorkloadRows());
        for (Workload w : ADDED_LATER) {
            rows.add(new Row(w.id() + " 4 KB", w, List.of("--sizes", "4k"), false, flowSeed(w.id(), 4096, false)));
        }
        rows.addAll(largeFlowRows(ADDED_LATER::contains));
        return List.copyOf(rows);
    }

    /** Subscribers of the PS-T, PS-D and F-PUB rows: report 002's middle column. */
    static final int OTHER_SUBSCRIBERS = 10;
    /** PS-T's dummy subscriptions: seed 001's largest count, beside which a genuine subscription must cost the same. */
    static final int PS_T_DUMMIES = 10_000;

    /**
     * The seed workloads the rows above leave out, each once at the small size (session 30): RR-2b, RR-5b, the one-way
     * OW-1 and OW-5, PS-T, PS-D, and every flow without a 4 KB row above. After the memory rows, so that the rows before
     * keep the numbers reports and performance-log.md cite them by.
     */
    private static List<Row> otherSeedWorkloadRows() {
        List<Row> rows = new ArrayList<>(List.of(
            new Row("RR-2b 2 KB, 8 requesters, 4 queue pairs", Workload.RR_2B,
                    List.of("--sizes", "2k", "--requesters", "8", "--queues", "4"), false, null),
            // neither peer runs RR-5b: a core bridge does not carry replies to another broker's temporary queue
            new Row("RR-5b 2 KB, 8 requesters, two queue managers, 4 request queues, a temporary reply queue each", Workload.RR_5B,
                    List.of("--sizes", "2k", "--requesters", "8", "--responders", "4", "--queues", "4"), false, null),
            new Row("OW-1 2 KB, 8 producers at 1,000 messages/s each (messages/s)", Workload.OW_1,
                    List.of("--sizes", "2k", "--requesters", "8", "--rate", "1000"), true, null),
            new Row("OW-5 2 KB, 8 producers at 1,000 messages/s each, two queue managers, one channel each way (messages/s)",
                    Workload.OW_5, List.of("--sizes", "2k", "--requesters", "8", "--rate", "1000"), true, null),
            new Row(String.format(Locale.ROOT, "PS-T 2 KB, %d subscribers on topics of their own, %,d dummy subscriptions (deliveries/s)",
                    OTHER_SUBSCRIBERS, PS_T_DUMMIES), Workload.PS_T, List.of("--sizes", "2k", "--subscribers",
                    Integer.toString(OTHER_SUBSCRIBERS), "--dummies", Integer.toString(PS_T_DUMMIES)), true, null),
            new Row(String.format(Locale.ROOT, "PS-D 2 KB, %d durable subscribers, persistent (deliveries/s)", OTHER_SUBSCRIBERS),
                    Workload.PS_D, List.of("--sizes", "2k", "--subscribers", Integer.toString(OTHER_SUBSCRIBERS)), true,
                    pubSubSeed(OTHER_SUBSCRIBERS, true)),
            new Row(String.format(Locale.ROOT, "F-PUB 4 KB, %d subscribers (deliveries/s)", OTHER_SUBSCRIBERS), Workload.F_PUB,
                    List.of("--sizes", "4k", "--subscribers", Integer.toString(OTHER_SUBSCRIBERS)), false,
                    pubSubSeed(OTHER_SUBSCRIBERS, false))));
        for (Workload w : List.of(Workload.F_HDR, Workload.F_WRITE, Workload.F_VALID, Workload.F_FILTER_FIRST, Workload.F_FILTER_LAST,
                Workload.F_OPAQUE, Workload.F_ROUTE, Workload.F_COMPUTE, Workload.F_CSV_WRITE, Workload.F_FIXED_WRITE,
                Workload.F_DB_INSERT, Workload.F_DB_UPDATE, Workload.F_DB_RETRIEVE, Workload.F_HTTP)) {
            rows.add(new Row(w.id() + " 4 KB", w, List.of("--sizes", "4k"), false, flowSeed(w.id(), 4096, false)));
        }
        return rows;
    }

    /**
     * Requesters of a large flow row: two keep the one flow instance busy (one message worked on while the other
     * travels); the reply timeout scales with the size ({@link RunSettings#timeoutSeconds(int)}).
     */
    static final int LARGE_FLOW_REQUESTERS = 2;

    /**
     * The seed's 4 MB and 8 MB flow rows (seed 002), each flow workload at each size, persistent and not, wherever the
     * seed published that row (F-XSLT, F-HDR, F-FILTER's ESQL variants: none; F-HTTP, F-FILE, F-FILE-OUT, F-JMS:
     * non-persistent only).
     */
    private static List<Row> largeFlowRows(Predicate<Workload> which) {
        List<Row> rows = new ArrayList<>();
        for (Workload w : Workload.values()) {
            if (w.flow() == null || !which.test(w)) {
                continue;
            }
            for (int size : new int[] {4 << 20, 8 << 20}) { // the seed's 4096K and 8192K
                for (boolean persistent : List.of(false, true)) {
                    String seed = flowSeed(w.id(), size, persistent);
                    if (seed == null) {
                        continue;
                    }
                    List<String> options = new ArrayList<>(List.of("--sizes", (size >> 20) + "m",
                            "--requesters", Integer.toString(LARGE_FLOW_REQUESTERS)));
                    if (persistent) {
                        options.add("--persistent");
                    }
                    rows.add(new Row(String.format(Locale.ROOT, "%s %d MB%s, %d requesters", w.id(), size >> 20,
                            persistent ? " persistent" : "", LARGE_FLOW_REQUESTERS), w, List.copyOf(options), false, seed));
                }
            }
        }
        return rows;
    }

    /** A large request/reply row's options: a responder per requester, transacted when persistent. */
    private static List<String> large(String size, int requesters, boolean persistent) {
        List<String> options = new ArrayList<>(List.of("--sizes", size, "--requesters", Integer.toString(requesters),
                "--responders", Integer.toString(requesters)));
        if (persistent) {
            options.add("--persistent");
        }
        return List.copyOf(options);
    }

    private ResultsPlan() {
    }

    private static String seed(String workload, int size, boolean persistent) {
        SeedRows.Row r = SeedRows.find(workload, size, persistent);
        return r == null ? null : String.format(Locale.ROOT, "%,d (%s, %d clients)", r.maxRate(), r.test(), r.clients());
    }

    private static String flowSeed(String workload, int size, boolean persistent) {
        SeedRows.FlowRow r = SeedRows.findFlow(workload, size, persistent);
        // the large rows' rates are below 2 a second: whole numbers would show 1.37 and 0.69 both as 1
        return r == null ? null : String.format(Locale.ROOT, r.rate() < 10 ? "%.2f (seed 002: %s)" : "%,.0f (seed 002: %s)",
                r.rate(), r.test());
    }

    private static String pubSubSeed(int subscribers, boolean persistent) {
        PubSubSeedRows.Row r = PubSubSeedRows.find(subscribers, persistent);
        return r == null ? null : String.format(Locale.ROOT, "%,.0f (seed 002, 4 KB%s, %d subscribers)", r.rate(),
                persistent ? " persistent" : "", subscribers);
    }
}
