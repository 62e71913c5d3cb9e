package org.wharfmq.perf.workload;

import org.wharfmq.perf.options.OptionException;
import org.wharfmq.perf.report.ResultsTable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code wharf perf report}: runs every row of the results table ({@link ResultsPlan}) on Wharf and on the built-in
 * peers, one after the other on this machine, and writes {@code results.md}: one table, Wharf beside Artemis and
 * ActiveMQ Classic, the seed's published row for reference, the machine, the date, the build and this command.
 * Each row's own report (every step, the charts) is in a directory of its own beside it.
 */
public final class ReportCommand {

    private static final String HELP = """
            Usage: wharf perf report [options]
              Runs each seed workload once (one message size, one client count) on Wharf and on the built-in
              peers, and writes results.md: the results table of docs/performance.md. About an hour.
              --only LIST         only the rows of these workloads, e.g. RR-4,PS-N (FOOTPRINT: the memory rows)
              --peers LIST        the peers beside Wharf: artemis,classic, one of them, or none  [artemis,classic]
              --warmup S          warm-up seconds per run (not counted)      [30]
              --run-length S      measured seconds per run                   [20]
              --quick             warm-up 2 s, 3 s measured, a footprint of 20 queues and connections:
                                  checks that every row runs, measures nothing
              --out DIR           where results.md and each row's report go  [perf-results/report-TIMESTAMP]
              --jvm-opts "OPTS"   options of the child JVMs                  [-Xmx1g]
              --verbose           show every line the child processes print
            """;

    /** Warm-up seconds of each run by default: a 2-core machine's JIT compilers settle in about that. */
    static final int DEFAULT_WARMUP_SECONDS = 30;
    /** Measured seconds of each run by default. */
    static final int DEFAULT_RUN_SECONDS = 20;

    private ReportCommand() {
    }

    /** Runs {@code args} and returns the exit status: 0 when every run passed its exactly-once checks. */
    public static int run(String[] args) throws Exception {
        if (args.length > 0 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.println(HELP);
            return 0;
        }
        Options o = Options.parse(args);
        Consumer<String> progress = line -> {
            System.out.println(line);
            System.out.flush();
        };
        Consumer<String> echo = o.verbose ? progress : line -> {
            if (line.contains("problem:") || line.contains("unavailable:")) {
                progress.accept("  " + line);
            }
        };
        List<ResultsPlan.Row> rows = o.rows();
        List<ResultsTable.Line> lines = new ArrayList<>();
        Map<Target, FootprintCommand.Result> footprints = new LinkedHashMap<>(); // both memory rows from one measurement
        int n = 0;
        for (ResultsPlan.Row row : rows) {
            n++;
            List<Target> targets = new ArrayList<>(List.of(Target.WHARF));
            if (row.peers()) {
                targets.addAll(o.peers);
            }
            progress.accept(String.format("[%d/%d] %s on %s", n, rows.size(), row.label(),
                    String.join(", ", targets.stream().map(Target::displayName).toList())));
            if (row.kind().footprint()) {
                ResultsTable.Line line = footprintLine(row, targets, footprints, o, echo);
                progress.accept("  " + line.summary());
                lines.add(line);
                continue;
            }
            List<String> runArgs = new ArrayList<>();
            runArgs.add(row.workload().id());
            runArgs.addAll(row.options());
            if (o.quick && row.kind() == ResultsPlan.Kind.RATED) { // thousands of connections would make it a measurement
                runArgs.addAll(List.of("--requesters", ResultsPlan.QUICK_RATED_REQUESTERS));
            }
            runArgs.addAll(List.of("--warmup", Integer.toString(o.warmup), "--run-length", Integer.toString(o.runLength),
                    "--out", o.output.resolve(row.slug()).toString(), "--jvm-opts", String.join(" ", o.jvmOptions)));
            RunCommand.Parsed parsed = RunCommand.parse(runArgs.toArray(String[]::new), false);
            Launcher launcher = new ChildJvmLauncher(parsed.settings().jvmOptions(), echo);
            List<StepResult> steps;
            try {
                steps = RunCommand.execute(parsed.settings(), targets, launcher, line -> { });
            } catch (Exception e) { // a process that hung or died: the row fails, the others still run and are written
                progress.accept("  failed to run: " + e);
                lines.add(ResultsTable.failed(row.label(), row.seedRow()));
                continue;
            }
            RunCommand.writeReport(parsed.settings(), steps, "bin/wharf perf run " + String.join(" ", runArgs));
            ResultsTable.Line line = row.kind() == ResultsPlan.Kind.RATED ? ResultsTable.rated(row.label(), row.seedRow(), row.slug(), steps)
                    : ResultsTable.line(row.label(), row.seedRow(), row.slug(), steps);
            progress.accept("  " + line.summary());
            lines.add(line);
        }
        String command = "bin/wharf perf report" + (args.length == 0 ? "" : " " + String.join(" ", args));
        Files.createDirectories(o.output);
        Path results = o.output.resolve("results.md");
        Files.writeString(results, ResultsTable.render(lines, o.peers.stream().map(Target::displayName).toList(), command,
                o.warmup, o.runLength));
        progress.accept("results: " + results);
        return lines.stream().allMatch(ResultsTable.Line::passed) ? 0 : 1;
    }

    /**
     * A memory row: each target's footprint (measured once for both memory rows, kept in {@code footprints}), its
     * heap per connection or per queue; a target that cannot be measured is n/a with the reason.
     */
    private static ResultsTable.Line footprintLine(ResultsPlan.Row row, List<Target> targets, Map<Target, FootprintCommand.Result> footprints,
                                                   Options o, Consumer<String> echo) throws Exception {
        int connections = o.quick ? ResultsPlan.QUICK_FOOTPRINT_ITEMS : ResultsPlan.FOOTPRINT_CONNECTIONS;
        int queues = o.quick ? ResultsPlan.QUICK_FOOTPRINT_ITEMS : ResultsPlan.FOOTPRINT_QUEUES;
        Map<String, ResultsTable.Cell> cells = new LinkedHashMap<>();
        for (Target t : targets) {
            FootprintCommand.Result r = footprints.get(t);
            if (r == null) {
                java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
                try {
                    r = FootprintCommand.measure(t, queues, connections, null, new ChildJvmLauncher(o.jvmOptions, echo),
                            new java.io.PrintStream(text, true, java.nio.charset.StandardCharsets.UTF_8));
                } catch (Exception e) { // a server that hung or died: this target's cells say so, the report goes on
                    echo.accept("problem: " + t.displayName() + "'s footprint failed: " + e);
                    cells.put(t.displayName(), ResultsTable.FAILED_TO_RUN);
                    continue;
                }
                text.toString(java.nio.charset.StandardCharsets.UTF_8).lines().forEach(echo);
                footprints.put(t, r);
            }
            cells.put(t.displayName(), row.kind() == ResultsPlan.Kind.MEMORY_PER_CONNECTION
                    ? ResultsTable.memoryCell(r.heapBytesPerConnection(), r.residentBytesPerConnection())
                    : ResultsTable.memoryCell(r.heapBytesPerQueue(), r.residentBytesPerQueue()));
        }
        return ResultsTable.memory(row.label(), row.seedRow(), cells);
    }

    /** The parsed command line. */
    record Options(List<String> only, List<Target> peers, int warmup, int runLength, Path output, List<String> jvmOptions,
                   boolean verbose, boolean quick) {

        static Options parse(String[] args) {
            List<String> only = List.of();
            List<Target> peers = List.of(Target.ARTEMIS, Target.CLASSIC);
            int warmup = DEFAULT_WARMUP_SECONDS;
            int runLength = DEFAULT_RUN_SECONDS;
            Path output = null;
            List<String> jvmOptions = List.of("-Xmx1g");
            boolean verbose = false;
            boolean quick = false;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--quick" -> {
                        warmup = 2;
                        runLength = 3;
                        quick = true;
                    }
                    case "--verbose" -> verbose = true;
                    default -> {
                        if (i + 1 >= args.length) {
                            throw new OptionException(a + " needs a value (see wharf perf report --help)");
                        }
                        String v = args[++i];
                        switch (a) {
                            case "--only" -> only = Arrays.stream(v.split(",")).map(s -> s.trim().equalsIgnoreCase(ResultsPlan.FOOTPRINT)
                                    ? ResultsPlan.FOOTPRINT : Workload.parse(s.trim()).id()).toList();
                            case "--peers" -> peers = v.equals("none") ? List.of()
                                    : Arrays.stream(v.split(",")).map(s -> peer(s.trim())).distinct().toList();
                            case "--warmup" -> warmup = seconds(a, v, 0);
                            case "--run-length" -> runLength = seconds(a, v, 1);
                            case "--out" -> output = Path.of(v);
                            case "--jvm-opts" -> jvmOptions = Arrays.stream(v.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
                            default -> throw new OptionException("Unknown option " + a + " (see wharf perf report --help)");
                        }
                    }
                }
            }
            if (output == null) {
                output = Path.of("perf-results", "report-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
            }
            return new Options(only, peers, warmup, runLength, output, jvmOptions, verbose, quick);
        }

        /** The plan's rows this run measures. */
        List<ResultsPlan.Row> rows() {
            List<ResultsPlan.Row> rows = ResultsPlan.ROWS.stream().filter(r -> only.isEmpty() || only.contains(r.id())).toList();
            if (rows.isEmpty()) {
                throw new OptionException("--only " + String.join(",", only) + ": the results table has no row of these workloads; its rows are "
                        + String.join(", ", ResultsPlan.ROWS.stream().map(ResultsPlan.Row::id).distinct().toList()));
            }
            return rows;
        }

        private static Target peer(String name) {
            Target t = Target.parse(name);
            if (t == Target.WHARF) {
                throw new OptionException("--peers " + name + ": Wharf runs every row anyway; the peers are artemis and classic");
            }
            return t;
        }

        private static int seconds(String option, String v, int least) {
            try {
                int n = Integer.parseInt(v.trim());
                if (n < least) {
                    throw new OptionException(option + " " + v + ": must be at least " + least);
                }
                return n;
            } catch (NumberFormatException e) {
                throw new OptionException(option + " " + v + ": not a whole number of seconds");
            }
        }
    }
}
