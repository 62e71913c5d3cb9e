package org.wharfmq.perf.report;

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

    /** What one target measured on a line. */
    public record Cell(double rate, double cpuMicrosPerOp, long p50Micros, boolean passed, String unavailable) {

        String text() {
            if (unavailable != null) {
                return "n/a";
            }
            return passed ? Sizes.rate(rate) : Sizes.rate(rate) + " (check FAILED)";
        }
    }

    /**
     * One line of the table.
     *
     * @param label   the workload as the table names it
     * @param seedRow the seed's published row, or null
     * @param slug    the directory of the line's own report
     * @param cells   per target's display name, what it measured
     */
    public record Line(String label, String seedRow, String slug, Map<String, Cell> cells) {

        /** Whether every target that ran passed its exactly-once checks. */
        public boolean passed() {
            return cells.values().stream().allMatch(c -> c.unavailable() != null || c.passed());
        }

        /** Wharf's rate over the best peer's that ran and passed, or NaN. */
        public double ratio() {
            Cell w = cells.get("Wharf");
            double best = cells.entrySet().stream().filter(e -> !e.getKey().equals("Wharf"))
                    .map(Map.Entry::getValue).filter(c -> c.unavailable() == null && c.passed())
                    .mapToDouble(Cell::rate).max().orElse(Double.NaN);
            return w == null || w.unavailable() != null || !(best > 0) ? Double.NaN : w.rate() / best;
        }

        /** The progress line of this line. */
        public String summary() {
            StringBuilder s = new StringBuilder(label).append(":");
            cells.forEach((t, c) -> s.append(' ').append(t).append(' ').append(c.text()));
            double r = ratio();
            if (!Double.isNaN(r)) {
                s.append(String.format(Locale.ROOT, ", Wharf / best peer %.2f", r));
            }
            return s.toString();
        }
    }

    private ResultsTable() {
    }

    /** The line of {@code steps} (one step per target; a flow's ceiling is left out). */
    public static Line line(String label, String seedRow, String slug, List<StepResult> steps) {
        Map<String, Cell> cells = new LinkedHashMap<>();
        for (StepResult s : steps) {
            if (s.target().startsWith("Ceiling")) {
                continue;
            }
            cells.put(s.target(), new Cell(s.medianRate(), s.cpuMicrosPerOp(), s.latencyMicros().p50(), s.passed(), s.unavailable()));
        }
        return new Line(label, seedRow, slug, cells);
    }

    /** The Markdown page. */
    public static String render(List<Line> lines, List<String> peers, String command, int warmup, int runLength) {
        List<String> columns = new ArrayList<>(List.of("Wharf"));
        columns.addAll(peers);
        StringBuilder md = new StringBuilder();
        md.append("# Results\n\n");
        md.append("Measured ").append(LocalDate.now()).append(" on ").append(Machine.describe()).append(".  \n");
        md.append("Build: Wharf ").append(WharfVersion.current()).append(", commit ").append(commit()).append(".  \n");
        md.append("Command: `").append(command).append("` (each run: a fresh server, ").append(warmup)
                .append(" s warm-up, ").append(runLength).append(" s measured; the servers one after the other).\n\n");
        md.append("| workload |");
        columns.forEach(c -> md.append(' ').append(c).append(" |"));
        md.append(" Wharf / best peer | Wharf server CPU per op | Wharf median latency | seed's row (its own hardware) |\n|---|");
        columns.forEach(c -> md.append("---:|"));
        md.append("---:|---:|---:|---|\n");
        for (Line l : lines) {
            md.append("| [").append(l.label()).append("](").append(l.slug()).append("/report.md) |");
            for (String c : columns) {
                Cell cell = l.cells().get(c);
                md.append(' ').append(cell == null ? "-" : cell.text()).append(" |");
            }
            double r = l.ratio();
            Cell w = l.cells().get("Wharf");
            md.append(' ').append(Double.isNaN(r) ? "-" : String.format(Locale.ROOT, "**%.2f**", r)).append(" |");
            md.append(' ').append(w == null ? "n/a" : Sizes.decimal(w.cpuMicrosPerOp()) + " us").append(" |");
            md.append(' ').append(w == null || w.p50Micros() == 0 ? "n/a" : Sizes.micros(w.p50Micros())).append(" |");
            md.append(' ').append(l.seedRow() == null ? "-" : l.seedRow()).append(" |\n");
        }
        md.append("\nRates are medians of the per-second rates after the warm-up: round trips/s for RR-*, deliveries/s at ")
                .append("the subscribers for PS-*, flow invocations/s for F-*. \"-\": the peer does not run that workload ")
                .append("(in-VM clients or a message flow). The seeds' rows come from other, larger machines: a reference, ")
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
