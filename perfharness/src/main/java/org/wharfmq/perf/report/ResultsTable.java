package org.wharfmq.perf.report;

import org.wharfmq.perf.workload.RatedSteps;
import org.wharfmq.perf.workload.RunCommand;
import org.wharfmq.perf.workload.Sizes;
import org.wharfmq.perf.workload.StepResult;
import org.wharfmq.server.WharfVersion;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The results table of {@code wharf perf report}: one line per workload, Wharf beside each peer from the same run,
 * the ratio to the best peer, Wharf's server CPU and median latency, and the seed's published row.
 */
public final class ResultsTable {

    /** Operations a second below which a rate cell is the step's mean rate, not its median. */
    public static final double LOW_RATE = 10;

    /**
     * What one target measured on a line.
     *
     * @param value  what is compared: a rate, the clients served (RR-RATED), bytes per item (the footprint)
     * @param shown  how the table writes it
     */
    public record Cell(double value, String shown, double cpuMicrosPerOp, long p50Micros, boolean passed, String unavailable) {

        /**
         * A rate row's cell: the step's median rate, or below {@value #LOW_RATE} a second its mean, with two decimals
         * (a median of whole per-second counts is 0, 1 or 2 there: an 8 MB flow row at 0.7 invocations a second is 0).
         */
        static Cell ofStep(StepResult s) {
            double rate = s.meanRate() < LOW_RATE ? s.meanRate() : s.medianRate();
            if (Double.isNaN(rate)) { // nothing counted (OW-5's consumers, none of whose producers connected): no "NaN" cell
                return new Cell(0, "none counted", s.cpuMicrosPerOp(), s.latencyMicros().p50(), s.passed(), s.unavailable());
            }
            return new Cell(rate, rateText(rate), s.cpuMicrosPerOp(), s.latencyMicros().p50(), s.passed(), s.unavailable());
        }

        String text() {
            if (unavailable != null) {
                return "n/a";
            }
            return passed ? shown : shown + " (check FAILED)";
        }
    }

    /**
     * A flow's plain loop beside it: what the loop is and its rate on one thread.
     *
     * @param name      what the loop is ({@link org.wharfmq.perf.flow.BenchmarkFlow#plainLoop(boolean)})
     * @param timedWith the label of the report's row whose timing of the same loop this line reuses, or null when the
     *                  loop was timed with this line's own run
     */
    public record PlainLoop(String name, double rate, String timedWith) {

        /** The loop as this line shows it: its rate, what it is, and the row it was timed with when another. */
        String described() {
            return rateText(rate) + "/s, " + name + (timedWith == null ? "" : ", timed with \"" + timedWith + "\"");
        }
    }

    /**
     * One line of the table.
     *
     * @param label         the workload as the table names it
     * @param seedRow       the seed's published row, or null
     * @param slug          the directory of the line's own report, or null when it has none
     * @param cells         per target's display name, what it measured
     * @param lowerIsBetter whether less is better (memory), not more (rates, clients)
     * @param loop          a flow's plain loop, the one issue 36's target is judged against, or null
     * @param jmsApplication a flow's second loop, a JMS application doing its work (the database and records rows), or
     *                       null: a reference beside the plain loop, not the target's
     */
    public record Line(String label, String seedRow, String slug, Map<String, Cell> cells, boolean lowerIsBetter, PlainLoop loop,
                       PlainLoop jmsApplication) {

        /** Whether every target that ran passed its exactly-once checks. */
        public boolean passed() {
            return cells.values().stream().allMatch(c -> c.unavailable() != null || c.passed());
        }

        /**
         * Wharf over the best peer that ran and passed, or NaN; for memory the best peer's over Wharf's, so that above 1
         * is Wharf ahead on every line.
         */
        public double ratio() {
            Cell w = cells.get("Wharf");
            java.util.stream.DoubleStream peers = cells.entrySet().stream().filter(e -> !e.getKey().equals("Wharf"))
                    .map(Map.Entry::getValue).filter(c -> c.unavailable() == null && c.passed()).mapToDouble(Cell::value);
            double best = (lowerIsBetter ? peers.min() : peers.max()).orElse(Double.NaN);
            if (w == null || w.unavailable() != null || !(best > 0) || !(w.value() > 0)) {
                return Double.NaN;
            }
            return lowerIsBetter ? best / w.value() : w.value() / best;
        }

        /** Wharf's rate over its plain loop's, or NaN. */
        public double loopRatio() {
            return ratioTo(loop);
        }

        /** Wharf's rate over its second loop's, the JMS application's, or NaN. */
        public double jmsApplicationRatio() {
            return ratioTo(jmsApplication);
        }

        private double ratioTo(PlainLoop l) {
            Cell w = cells.get("Wharf");
            return l == null || w == null || w.unavailable() != null || !(l.rate() > 0) ? Double.NaN : w.value() / l.rate();
        }

        /**
         * This line with its loops said to be timed with the rows {@code plain} and {@code application} (labels; null:
         * its own run), as a report that shares its loops between rows tells ({@code PlainLoopTimings}).
         */
        public Line withLoopsTimedWith(String plain, String application) {
            return new Line(label, seedRow, slug, cells, lowerIsBetter, timedWith(loop, plain), timedWith(jmsApplication, application));
        }

        private static PlainLoop timedWith(PlainLoop l, String row) {
            return l == null || row == null ? l : new PlainLoop(l.name(), l.rate(), row);
        }

        /** The progress line of this line. */
        public String summary() {
            StringBuilder s = new StringBuilder(label).append(":");
            cells.forEach((t, c) -> s.append(' ').append(t).append(' ').append(c.text()));
            double r = ratio();
            if (!Double.isNaN(r)) {
                s.append(String.format(Locale.ROOT, ", Wharf / best peer %.2f", r));
            }
            if (loop != null) {
                s.append(String.format(Locale.ROOT, ", %s %s/s%s, Wharf / loop %.2f", loop.name(), rateText(loop.rate()),
                        timedWithNote(loop), loopRatio()));
            }
            if (jmsApplication != null) {
                s.append(String.format(Locale.ROOT, "; against a JMS application doing the same work (%s) %s/s%s, Wharf / loop %.2f",
                        jmsApplication.name(), rateText(jmsApplication.rate()), timedWithNote(jmsApplication), jmsApplicationRatio()));
            }
            return s.toString();
        }
    }

    private ResultsTable() {
    }

    private static String timedWithNote(PlainLoop l) {
        return l.timedWith() == null ? "" : " (timed with \"" + l.timedWith() + "\")";
    }

    /** A rate as the table writes it: whole numbers, and below {@link #LOW_RATE} two decimals. */
    static String rateText(double rate) {
        return rate < LOW_RATE ? String.format(Locale.ROOT, "%.2f", rate) : Sizes.rate(rate);
    }

    /** The line of a rate row's {@code steps}: one step per target, and a flow's plain loop set beside them. */
    public static Line line(String label, String seedRow, String slug, List<StepResult> steps) {
        Map<String, Cell> cells = new LinkedHashMap<>();
        PlainLoop loop = null;
        PlainLoop jmsApplication = null;
        for (StepResult s : steps) {
            if (RunCommand.isPlainLoop(s.target())) {
                loop = new PlainLoop(s.target().substring(RunCommand.PLAIN_LOOP.length() + 2, s.target().length() - 1), s.medianRate(),
                        null);
            } else if (RunCommand.isJmsApplicationLoop(s.target())) {
                jmsApplication = new PlainLoop(s.target().substring(RunCommand.JMS_APPLICATION.length() + 2,
                        s.target().length() - 1), s.medianRate(), null);
            } else {
                cells.put(s.target(), Cell.ofStep(s));
            }
        }
        return new Line(label, seedRow, slug, cells, false, loop, jmsApplication);
    }

    /**
     * The line of a rated row (RR-RATED): per target the clients served, the largest step that served them
     * ({@link RatedSteps#served}: its median response within the threshold over all its requesters and in each requester
     * JVM), with what stopped the stepping after it ({@link RatedSteps#stoppedByBrief}: a median past the threshold, an
     * overload, a failed check, a limit of the machine the next step was past); its CPU and median are that step's. The
     * step that stopped it may have failed its checks (replies past the timeout at overload): that is where the stepping
     * ends, not a failed line, which is one whose served steps failed (none served, and its first step failed).
     */
    public static Line rated(String label, String seedRow, String slug, List<StepResult> steps) {
        Map<String, Cell> cells = new LinkedHashMap<>();
        for (List<StepResult> target : MarkdownReport.byTarget(steps).values()) {
            StepResult first = target.get(0);
            if (first.unavailable() != null) {
                cells.put(first.target(), new Cell(0, "n/a", Double.NaN, 0, false, first.unavailable()));
                continue;
            }
            int served = RatedSteps.clientsServed(target);
            StepResult at = target.stream().filter(s -> s.clients() == served && RatedSteps.served(s)).findFirst().orElse(null);
            String shown = String.format(Locale.ROOT, "%,d %s", served, RatedSteps.stoppedByBrief(target));
            cells.put(first.target(), new Cell(served, shown, at == null ? Double.NaN : at.cpuMicrosPerOp(),
                    at == null ? 0 : at.latencyMicros().p50(), at != null || first.passed(), null));
        }
        return new Line(label, seedRow, slug, cells, false, null, null);
    }

    /** The cell of a target whose run failed (a process hung or died; the progress says why): it fails the report. */
    public static final Cell FAILED_TO_RUN = new Cell(0, "failed to run", Double.NaN, 0, false, null);

    /** The line of a row that failed to run: Wharf's cell says so. */
    public static Line failed(String label, String seedRow) {
        return new Line(label, seedRow, null, Map.of("Wharf", FAILED_TO_RUN), false, null, null);
    }

    /** A memory line (the footprint): per target, bytes per item, lower is better. */
    public static Line memory(String label, String seedRow, Map<String, Cell> cells) {
        return new Line(label, seedRow, null, cells, true, null, null);
    }

    /** A memory cell: {@code heapBytes} of live heap per item, and the resident set's growth per item beside it. */
    public static Cell memoryCell(double heapBytes, double residentBytes) {
        return new Cell(heapBytes, String.format(Locale.ROOT, "%.1f KB (RSS %.1f KB)", heapBytes / 1024, residentBytes / 1024),
                Double.NaN, 0, true, null);
    }

    /** The Markdown page. */
    public static String render(List<Line> lines, List<String> peers, String command, int warmup, int runLength) {
        return render(lines, peers, command, null, warmup, runLength);
    }

    /** The Markdown page, with {@code note} (or none when null) after the command. */
    public static String render(List<Line> lines, List<String> peers, String command, String note, int warmup, int runLength) {
        List<String> columns = new ArrayList<>(List.of("Wharf"));
        columns.addAll(peers);
        StringBuilder md = new StringBuilder();
        md.append("# Results\n\n");
        md.append("Measured ").append(LocalDate.now()).append(" on ").append(Machine.describe()).append(".  \n");
        md.append("Build: Wharf ").append(WharfVersion.current()).append(", commit ").append(commit()).append(".  \n");
        md.append("Command: `").append(command).append("` (each run: a fresh server, ").append(warmup)
                .append(" s warm-up, ").append(runLength).append(" s measured; the servers one after the other).\n\n");
        if (note != null) {
            md.append(note).append("\n\n");
        }
        md.append("| workload |");
        columns.forEach(c -> md.append(' ').append(c).append(" |"));
        md.append(" Wharf / best peer | Wharf server CPU per op | Wharf median latency | plain loop on one thread (Wharf / loop) |"
                + " seed's row (its own hardware) |\n|---|");
        columns.forEach(c -> md.append("---:|"));
        md.append("---:|---:|---:|---|---|\n");
        Map<String, Integer> whyNot = new LinkedHashMap<>(); // each peer's reason for an n/a cell, numbered as first met
        for (Line l : lines) {
            md.append("| ").append(l.slug() == null ? l.label() : "[" + l.label() + "](" + l.slug() + "/report.md)").append(" |");
            for (String c : columns) {
                Cell cell = l.cells().get(c);
                String text = cell == null ? "-" : cell.text();
                if (cell != null && cell.unavailable() != null) {
                    text += " (" + whyNot.computeIfAbsent(cell.unavailable(), k -> whyNot.size() + 1) + ")";
                }
                md.append(' ').append(text).append(" |");
            }
            double r = l.ratio();
            Cell w = l.cells().get("Wharf");
            md.append(' ').append(Double.isNaN(r) ? "-" : String.format(Locale.ROOT, "**%.2f**", r)).append(" |");
            md.append(' ').append(w == null || Double.isNaN(w.cpuMicrosPerOp()) ? "-" : Sizes.decimal(w.cpuMicrosPerOp()) + " us").append(" |");
            md.append(' ').append(w == null || w.p50Micros() == 0 ? "-" : Sizes.micros(w.p50Micros())).append(" |");
            md.append(' ').append(l.loop() == null ? "-" : String.format(Locale.ROOT, "%s (%.2f)", l.loop().described(), l.loopRatio()));
            if (l.jmsApplication() != null) {
                md.append(String.format(Locale.ROOT, "; against a JMS application doing the same work: %s/s%s (%.2f)",
                        rateText(l.jmsApplication().rate()), l.jmsApplication().timedWith() == null ? ""
                                : ", timed with \"" + l.jmsApplication().timedWith() + "\"", l.jmsApplicationRatio()));
            }
            md.append(" |");
            md.append(' ').append(l.seedRow() == null ? "-" : l.seedRow()).append(" |\n");
        }
        if (!whyNot.isEmpty()) {
            md.append('\n');
        }
        whyNot.forEach((why, n) -> md.append("n/a (").append(n).append("): ").append(why.replace("|", "/")).append("  \n"));
        md.append("\nRates are medians of the per-second rates after the warm-up (below 10 a second, shown with two decimals, ")
                .append("their mean: a median of whole per-second counts would be 0, 1 or 2): round trips/s for RR-*, deliveries/s at ")
                .append("the subscribers for PS-*, flow invocations/s for F-*. \"-\": the peer does not run that workload ")
                .append("(in-VM clients, a message flow, or RR-5b's temporary reply queues, which no peer's bridge carries); \"n/a (N)\": ")
                .append("the peer ran no step, for the reason N under the table. RR-RATED: the clients served, the largest step whose median ")
                .append("response, each timed from when its request was due, stayed within 1 s over all its requesters and in ")
                .append("each requester JVM, and what stopped the stepping after it. Memory: live heap per idle ")
                .append("connection or defined queue (the resident set's growth beside it), and the best peer's over Wharf's ")
                .append("as the ratio, so that above 1 is Wharf ahead on every line. A flow's plain loop does its work, or what ")
                .append("the flow stands in for, on one thread with no broker (issue 36's target: Wharf / loop 0.77 or more). ")
                .append("For the database and records flows the cell then gives a second reference, a JMS application ")
                .append("doing the same work with the flow's messaging and no flow engine: what the flow engine adds over ")
                .append("a hand-written application, not the loop the target is judged against. ")
                .append("A loop runs in the report's own JVM with no server running, so a report times it once per flow and ")
                .append("message size (and persistence, for a loop that does durable work), with the first row that needs it, ")
                .append("and a later row names the row whose timing it shows (\"timed with\"); a loop whose rate is the disk's ")
                .append("sync time (F-FILE's, the persistent JMS loops) is timed with every row, before and after its step. ")
                .append("The seeds' rows come from other, larger machines: a reference, ")
                .append("not a target. Each workload is defined in docs/benchmarks.md.\n");
        return md.toString();
    }

    /** The git commit of the working directory, or {@code unknown} outside a git checkout. */
    static String commit() {
        try {
            Process p = new ProcessBuilder("git", "describe", "--always", "--dirty").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && !out.isEmpty() ? out : "unknown";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }
}
