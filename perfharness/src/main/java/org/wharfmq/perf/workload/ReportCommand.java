package org.wharfmq.perf.workload;

import org.wharfmq.perf.options.OptionException;
import org.wharfmq.perf.options.PerfOptions;
import org.wharfmq.perf.report.Machine;
import org.wharfmq.perf.report.ResultsTable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@code wharf perf report}: runs every row of the results table ({@link ResultsPlan}) on Wharf and on the built-in
 * peers, one after the other on this machine, and writes {@code results.md}: one table, Wharf beside Artemis and
 * ActiveMQ Classic, the seed's published row for reference, the machine, the date, the build and this command.
 * Each row's own report (every step, the charts) is in a directory of its own beside it, with the row's line
 * ({@link RowResults}) that {@code --resume} keeps; results.md is rewritten as each row ends, so a run stopped part way
 * leaves the table of the rows that ended.
 */
public final class ReportCommand {

    private static final String HELP = """
            Usage: wharf perf report [options]
              Runs each seed workload (at a small message size and at the seeds' large ones) on Wharf and on the
              built-in peers, one row after the other, and writes results.md: the results table of
              docs/performance.md. It says up front about how long the rows chosen take (every row: hours), then
              which row runs and how long each took; results.md is rewritten as each row ends. Every run starts
              its servers afresh; a flow's plain loop (no server) is timed once per flow and message size and its
              later rows show that timing, naming the row it was timed with (docs/benchmarks.md).
              --list              the rows, numbered, with about how long each takes; runs nothing
              --rows LIST         only these rows: numbers and ranges as --list shows them (3,7-9), workload
                                  ids (every row of it: RR-4,PS-N) or FOOTPRINT (the memory rows)  [every row]
              --resume DIR        go on with the report in DIR (an earlier run's --out): the rows that ended
                                  there are kept, the others run
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
        if (PerfOptions.helpAsked(args)) {
            System.out.println(HELP);
            return 0;
        }
        Options o = Options.parse(args);
        Consumer<String> progress = line -> {
            System.out.println(line);
            System.out.flush();
        };
        List<ResultsPlan.Row> rows = o.rows();
        if (o.list) {
            list(rows, o, progress);
            return 0;
        }
        Consumer<String> echo = o.verbose ? progress : line -> {
            if (line.contains("problem:") || line.contains("unavailable:")) {
                progress.accept("  " + line);
            }
        };
        RowResults kept = new RowResults(o.output);
        // the table: this run's rows and, resumed, every row of the plan the directory kept (a run of other --rows
        // adds to the table instead of replacing it), in the plan's order
        Map<ResultsPlan.Row, ResultsTable.Line> table = new LinkedHashMap<>();
        for (ResultsPlan.Row row : o.resume ? ResultsPlan.ROWS : List.<ResultsPlan.Row>of()) {
            ResultsTable.Line line = kept.load(row);
            if (line != null) {
                table.put(row, line);
            }
        }
        Map<ResultsPlan.Row, ResultsTable.Line> earlier = new LinkedHashMap<>();
        for (ResultsPlan.Row row : rows) {
            if (table.containsKey(row)) {
                earlier.put(row, table.get(row));
            }
        }
        List<ResultsPlan.Row> running = rows.stream().filter(r -> !earlier.containsKey(r)).toList();
        Map<ResultsPlan.Row, Long> estimates = ResultsPlan.estimates(running, o.warmup, o.runLength, o.peers, o.quick);
        long left = estimates.values().stream().mapToLong(Long::longValue).sum();
        int toRun = rows.size() - earlier.size();
        List<String> servers = servers(rows.stream().filter(r -> !earlier.containsKey(r)).toList(), o.peers).stream()
                .map(Target::displayName).toList();
        progress.accept(String.format(Locale.ROOT, "%d %s on %s%s: about %s (each run %d s of warm-up and %d s measured). "
                        + "The table so far is in %s as each row ends; to go on after a stop: wharf perf report --resume %s",
                toRun, toRun == 1 ? "row" : "rows", inWords(servers), earlier.isEmpty() ? "" : " (" + earlier.size() + " more kept from the run resumed)",
                duration(left), o.warmup, o.runLength, o.output.resolve("results.md"), o.output));
        String loadNote = loadNote(Machine.loadAverage(), Runtime.getRuntime().availableProcessors());
        if (loadNote != null) {
            progress.accept(loadNote);
        }
        String command = "bin/wharf perf report" + (args.length == 0 ? "" : " " + String.join(" ", args));
        boolean othersKept = table.size() > earlier.size();
        List<ResultsTable.Line> lines = new ArrayList<>();
        Map<Target, FootprintCommand.Result> footprints = new LinkedHashMap<>(); // both memory rows from one measurement
        PlainLoopTimings loops = PlainLoopTimings.shared(); // a flow's loop timed once per flow and size
        int n = 0;
        for (ResultsPlan.Row row : rows) {
            n++;
            String which = String.format(Locale.ROOT, "[%d/%d] row %d, %s", n, rows.size(), ResultsPlan.number(row), row.label());
            if (earlier.containsKey(row)) {
                progress.accept(which + ": kept from the run resumed (" + kept.where(row) + ")");
                continue;
            }
            List<Target> targets = new ArrayList<>(List.of(Target.WHARF));
            if (row.peers()) {
                targets.addAll(o.peers);
            }
            long estimate = estimates.get(row);
            progress.accept(String.format(Locale.ROOT, "%s on %s: about %s (about %s left in all)", which,
                    inWords(targets.stream().map(Target::displayName).toList()), duration(estimate), duration(left)));
            left -= estimate;
            long started = System.nanoTime();
            ResultsTable.Line line;
            try {
                line = runRow(row, targets, footprints, loops, o, echo, progress);
                kept.save(row, line);
            } catch (Exception e) { // a process that hung or died: the row fails (and a resumed run runs it again)
                progress.accept("  failed to run: " + e);
                line = ResultsTable.failed(row.label(), row.seedRow());
            }
            progress.accept(String.format(Locale.ROOT, "  took %s: %s",
                    duration(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)), line.summary()));
            lines.add(line);
            table.put(row, line);
            writeTable(inPlanOrder(table), o, command, othersKept, loadNote);
        }
        Path results = writeTable(inPlanOrder(table), o, command, othersKept, loadNote);
        progress.accept("results: " + results);
        return lines.stream().allMatch(ResultsTable.Line::passed) ? 0 : 1;
    }

    /** The lines of {@code table} in the order of the plan's rows. */
    private static List<ResultsTable.Line> inPlanOrder(Map<ResultsPlan.Row, ResultsTable.Line> table) {
        return ResultsPlan.ROWS.stream().filter(table::containsKey).map(table::get).toList();
    }

    /** {@code --list}: the rows chosen, numbered, each with about how long it takes, and the total. */
    private static void list(List<ResultsPlan.Row> rows, Options o, Consumer<String> out) {
        long total = 0;
        Map<ResultsPlan.Row, Long> estimates = ResultsPlan.estimates(rows, o.warmup, o.runLength, o.peers, o.quick);
        for (ResultsPlan.Row row : rows) {
            long estimate = estimates.get(row);
            total += estimate;
            out.accept(String.format(Locale.ROOT, "%3d  %-14s about %-12s %s%s", ResultsPlan.number(row), row.id(), duration(estimate),
                    row.label(), row.peers() ? "" : " (Wharf only)"));
        }
        boolean anyPeer = !o.peers.isEmpty() && rows.stream().anyMatch(ResultsPlan.Row::peers);
        out.accept(String.format(Locale.ROOT, "%d rows: about %s %s, %d s of warm-up and %d s measured per run",
                rows.size(), duration(total), anyPeer ? "with " + inWords(o.peers.stream().map(Target::displayName).toList())
                        + " beside Wharf where a row runs them" : "on Wharf alone", o.warmup, o.runLength));
    }

    /** Runs {@code row} on {@code targets}: its line; a server's step that failed or could not run is told with why. */
    private static ResultsTable.Line runRow(ResultsPlan.Row row, List<Target> targets, Map<Target, FootprintCommand.Result> footprints,
                                            PlainLoopTimings loops, Options o, Consumer<String> echo, Consumer<String> progress)
            throws Exception {
        if (row.kind().footprint()) {
            return footprintLine(row, targets, footprints, o, echo);
        }
        List<String> runArgs = runArgs(row, o.quick, o.warmup, o.runLength, o.output.resolve(row.slug()), o.jvmOptions);
        RunCommand.Parsed parsed = RunCommand.parse(runArgs.toArray(String[]::new), false);
        Launcher launcher = new ChildJvmLauncher(parsed.settings().jvmOptions(), echo);
        loops.startRow(row.label());
        List<StepResult> steps = RunCommand.execute(parsed.settings(), targets, launcher, loops, line -> { });
        RunCommand.writeReport(parsed.settings(), steps, "bin/wharf perf run " + String.join(" ", runArgs));
        for (StepResult s : steps) {
            if (s.unavailable() != null) {
                progress.accept("  " + s.target() + ": n/a" + (row.kind() == ResultsPlan.Kind.RATED
                        ? String.format(Locale.ROOT, " from %,d requesters", s.clients()) : "") + ", " + s.unavailable());
            } else if (!s.passed()) {
                progress.accept("  " + s.target() + " failed: " + (s.problems().isEmpty() ? "its checks" : s.problems().get(0))
                        + (s.problems().size() > 1 ? " (and " + (s.problems().size() - 1) + " more problems: the row's report.md)" : ""));
            }
        }
        Map<PlainLoopTimings.Loop, String> reused = loops.reusedByRow();
        reused.forEach((loop, with) -> progress.accept("  " + (loop == PlainLoopTimings.Loop.PLAIN ? "its plain loop"
                : "its JMS application loop") + ": the timing of row \"" + with + "\", the same loop"));
        return row.kind() == ResultsPlan.Kind.RATED ? ResultsTable.rated(row.label(), row.seedRow(), row.slug(), steps)
                : ResultsTable.line(row.label(), row.seedRow(), row.slug(), steps).withLoopsTimedWith(
                        reused.get(PlainLoopTimings.Loop.PLAIN), reused.get(PlainLoopTimings.Loop.JMS_APPLICATION));
    }

    /** The {@code wharf perf run} arguments of a rate or rated row. */
    static List<String> runArgs(ResultsPlan.Row row, boolean quick, int warmup, int runLength, Path out, List<String> jvmOptions) {
        List<String> runArgs = new ArrayList<>();
        runArgs.add(row.workload().id());
        runArgs.addAll(row.options());
        if (quick && row.kind() == ResultsPlan.Kind.RATED) { // thousands of connections would make it a measurement
            runArgs.addAll(List.of("--requesters", ResultsPlan.QUICK_RATED_REQUESTERS));
        }
        runArgs.addAll(List.of("--warmup", Integer.toString(warmup), "--run-length", Integer.toString(runLength),
                "--out", out.toString(), "--jvm-opts", String.join(" ", jvmOptions)));
        return runArgs;
    }

    /**
     * What the machine's load average when the report started says, before any of its own processes ran: that something
     * else was running (above one runnable thread per core), which the table's rates then follow. Null where unknown.
     */
    static String loadNote(double load, int cores) {
        if (Double.isNaN(load)) {
            return null;
        }
        String at = String.format(Locale.ROOT, "Load average when the report started: %.1f on %d cores", load, cores);
        return load > cores ? at + ": something else was running. The rates follow the CPU left to the servers and their"
                + " clients, so they say little; run the report with nothing else on the machine." : at + ".";
    }

    /** The servers {@code toRun} runs on: Wharf, and {@code peers} where a row runs them (a run of Wharf's rows names none). */
    static List<Target> servers(List<ResultsPlan.Row> toRun, List<Target> peers) {
        List<Target> servers = new ArrayList<>(List.of(Target.WHARF));
        if (toRun.stream().anyMatch(ResultsPlan.Row::peers)) {
            servers.addAll(peers);
        }
        return servers;
    }

    /** {@code Wharf}, {@code Wharf and Artemis}, {@code Wharf, Artemis and ActiveMQ Classic}. */
    static String inWords(List<String> names) {
        return names.size() == 1 ? names.get(0)
                : String.join(", ", names.subList(0, names.size() - 1)) + " and " + names.get(names.size() - 1);
    }

    /** Writes results.md with {@code lines}, the table so far. */
    private static Path writeTable(List<ResultsTable.Line> lines, Options o, String command, boolean othersKept, String loadNote)
            throws java.io.IOException {
        Files.createDirectories(o.output);
        Path results = o.output.resolve("results.md");
        String kept = othersKept ? "The table also holds the rows that earlier runs into " + o.output + " ended (other `--rows`):"
                + " they ran on those runs' day and build, which the times of each row's files record." : null;
        String note = loadNote == null ? kept : kept == null ? loadNote : loadNote + " " + kept;
        String page = ResultsTable.render(lines, o.peers.stream().map(Target::displayName).toList(), command, note, o.warmup, o.runLength);
        Files.writeString(results, page);
        return results;
    }

    /** {@code seconds} as a person reads it: {@code 45 s}, {@code 3 min 20 s}, {@code 2 h 5 min}. */
    static String duration(long seconds) {
        if (seconds < 60) {
            return seconds + " s";
        }
        if (seconds < 3600) {
            return seconds / 60 + " min" + (seconds % 60 == 0 ? "" : " " + seconds % 60 + " s");
        }
        return seconds / 3600 + " h" + (seconds % 3600 / 60 == 0 ? "" : " " + seconds % 3600 / 60 + " min");
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
    record Options(List<String> rowItems, List<Target> peers, int warmup, int runLength, Path output, List<String> jvmOptions,
                   boolean verbose, boolean quick, boolean list, boolean resume) {

        static Options parse(String[] args) {
            List<String> rowItems = List.of();
            List<Target> peers = List.of(Target.ARTEMIS, Target.CLASSIC);
            int warmup = DEFAULT_WARMUP_SECONDS;
            int runLength = DEFAULT_RUN_SECONDS;
            Path output = null;
            Path resume = null;
            List<String> jvmOptions = List.of("-Xmx1g");
            boolean verbose = false;
            boolean quick = false;
            boolean list = false;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--quick" -> {
                        warmup = 2;
                        runLength = 3;
                        quick = true;
                    }
                    case "--verbose" -> verbose = true;
                    case "--list" -> list = true;
                    default -> {
                        if (i + 1 >= args.length) {
                            throw new OptionException(a + " needs a value (see wharf perf report --help)");
                        }
                        String v = args[++i];
                        switch (a) {
                            case "--rows" -> rowItems = Arrays.stream(v.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
                            case "--peers" -> peers = v.equals("none") ? List.of()
                                    : Arrays.stream(v.split(",")).map(s -> peer(s.trim())).distinct().toList();
                            case "--warmup" -> warmup = seconds(a, v, 0);
                            case "--run-length" -> runLength = seconds(a, v, 1);
                            case "--out" -> output = Path.of(v);
                            case "--resume" -> resume = Path.of(v);
                            case "--jvm-opts" -> jvmOptions = Arrays.stream(v.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
                            default -> throw new OptionException("Unknown option " + a + " (see wharf perf report --help)");
                        }
                    }
                }
            }
            if (resume != null) {
                if (output != null && !output.equals(resume)) {
                    throw new OptionException("--resume " + resume + " goes on in that directory: leave out --out " + output);
                }
                if (!Files.isDirectory(resume)) {
                    throw new OptionException("--resume " + resume + ": no such directory; give the --out of the report to go on with");
                }
                output = resume;
            }
            if (output == null) {
                output = Path.of("perf-results", "report-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
            }
            return new Options(rowItems, peers, warmup, runLength, output, jvmOptions, verbose, quick, list, resume != null);
        }

        /** The plan's rows this run measures ({@code --rows}). */
        List<ResultsPlan.Row> rows() {
            return ResultsPlan.select(rowItems);
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
