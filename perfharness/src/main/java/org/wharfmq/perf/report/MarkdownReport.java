package org.wharfmq.perf.report;

import org.wharfmq.perf.workload.Sizes;
import org.wharfmq.perf.workload.StepResult;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * The report of a run, shaped like the seeds' tables: per message size the peak rate, the server CPU% at the
 * peak and the client count at the peak, for each target side by side with the seed's published row; then every
 * step, and the charts.
 */
public final class MarkdownReport {

    private MarkdownReport() {
    }

    /** The peak step (highest median rate) among {@code steps} that ran and passed, or null. */
    public static StepResult peak(List<StepResult> steps) {
        return steps.stream().filter(s -> s.unavailable() == null)
                .max(Comparator.comparingDouble(StepResult::medianRate)).orElse(null);
    }

    /**
     * The Markdown text.
     *
     * @param workload    the workload id
     * @param description what the workload is
     * @param unit        what is counted
     * @param command     the command line that produced the results
     * @param results     per target, its steps in order
     * @param charts      per message size, the chart's file name
     */
    public static String render(String workload, String description, String unit, boolean persistent, String command,
                                Map<String, List<StepResult>> results, Map<Integer, String> charts) {
        StringBuilder md = new StringBuilder();
        md.append("## ").append(workload).append(": ").append(description).append("\n\n");
        md.append("Command: `").append(command).append("`  \n");
        md.append("Machine: ").append(Machine.describe()).append("  \n");
        md.append("Counted: ").append(unit).append(", median of the per-second rates after the warm-up; CPU% is the ")
                .append("server process's share of the whole machine (all cores), from /proc.\n\n");
        TreeSet<Integer> sizes = new TreeSet<>();
        results.values().forEach(steps -> steps.forEach(s -> sizes.add(s.messageSize())));
        boolean flow = workload.startsWith("F-");
        if (flow) {
            flowTable(md, workload, persistent, sizes, results);
        } else {
            clientTable(md, workload, persistent, sizes, results);
        }
        md.append("\n*").append(unit).append("\n\n");
        if (results.size() == 2) {
            List<String> names = List.copyOf(results.keySet());
            for (int size : sizes) {
                StepResult a = peak(results.get(names.get(0)).stream().filter(s -> s.messageSize() == size).toList());
                StepResult b = peak(results.get(names.get(1)).stream().filter(s -> s.messageSize() == size).toList());
                if (a != null && b != null && b.medianRate() > 0) {
                    md.append(String.format(Locale.ROOT, "%s %s: %s / %s peak ratio = %.3g%n%n", workload, Sizes.label(size),
                            names.get(0), names.get(1), a.medianRate() / b.medianRate()));
                }
            }
        }
        for (Map.Entry<String, List<StepResult>> e : results.entrySet()) {
            md.append("### ").append(e.getKey()).append(", every step\n\n");
            md.append(String.format(Locale.ROOT, "All JVMs' CPU: the server's and the clients' together, per round trip (or message): on one machine the"
                    + " clients share the cores with the server. JIT%%: the CPU the JIT compilers of all the step's JVMs used during the measured period, as a share"
                    + " of the machine; above %.0f %% the JVMs were still compiling and the rate is low (use a longer --warmup).%n%n",
                    StepResult.JIT_WARNING_PERCENT));
            md.append("| Size | Clients | ").append(flow ? "Instances" : "Responders")
                    .append(" | Median rate | Mean rate | Server CPU% | CPU us per op | All JVMs' CPU us per op | JIT% | p50 | p99 | p99.9 | Check |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
            for (StepResult s : e.getValue()) {
                if (s.unavailable() != null) {
                    md.append("| ").append(Sizes.label(s.messageSize())).append(" | ").append(s.clients())
                            .append(" | | unavailable: ").append(s.unavailable().replace("|", "/")).append(" | | | | | | | | | |\n");
                    continue;
                }
                md.append(String.format(Locale.ROOT, "| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                        Sizes.label(s.messageSize()), s.clients(), s.responders(), Sizes.rate(s.medianRate()),
                        Sizes.rate(s.meanRate()), Sizes.percent(s.cpuPercent()), Sizes.decimal(s.cpuMicrosPerOp()),
                        Sizes.decimal(s.allCpuMicrosPerOp()),
                        Sizes.percent(s.jitPercent()) + (s.stillWarmingUp() ? " (still warming up)" : ""),
                        Sizes.micros(s.latencyMicros().p50()), Sizes.micros(s.latencyMicros().p99()),
                        Sizes.micros(s.latencyMicros().p999()), s.passed() ? "passed" : "FAILED: " + String.join("; ", s.problems()).replace("|", "/")));
            }
            md.append('\n');
        }
        charts.forEach((size, file) -> md.append("![").append(workload).append(' ').append(Sizes.label(size))
                .append(": rate and p99 latency against ").append(flow ? "flow instances" : "clients").append("](").append(file)
                .append(")\n\n"));
        return md.toString();
    }

    /** The seeds' queue-manager table: per size, each target's peak rate, CPU% and clients, and the V8.0 row. */
    private static void clientTable(StringBuilder md, String workload, boolean persistent, TreeSet<Integer> sizes,
                                    Map<String, List<StepResult>> results) {
        peakTable(md, workload, persistent, sizes, results, List.of("Max Rate*", "CPU%", "Clients"),
                p -> List.of(rateCell(p), Sizes.percent(p.cpuPercent()).replace("%", ""), Integer.toString(p.clients())),
                "Seed V8.0 (other hardware) Max Rate* | CPU% | Clients", size -> {
                    SeedRows.Row seed = SeedRows.find(workload, size, persistent);
                    return seed == null ? "no published row | |"
                            : String.format(Locale.ROOT, "%,d | %.2f | %d", seed.maxRate(), seed.cpuPercent(), seed.clients());
                });
    }

    /**
     * The broker report's table: per size, each target's peak rate, CPU%, CPU ms per message and instances at the
     * peak, and the 002 row (one copy of the flow).
     */
    private static void flowTable(StringBuilder md, String workload, boolean persistent, TreeSet<Integer> sizes,
                                  Map<String, List<StepResult>> results) {
        peakTable(md, workload, persistent, sizes, results, List.of("Max Rate*", "CPU%", "CPU ms/msg", "Instances"),
                p -> List.of(rateCell(p), Sizes.percent(p.cpuPercent()).replace("%", ""), millis(p.cpuMicrosPerOp()),
                        Integer.toString(p.responders())),
                "Seed 002 WMB V6.1 (other hardware) Rate* | CPU% | CPU ms/msg", size -> {
                    SeedRows.FlowRow seed = SeedRows.findFlow(workload, size, persistent);
                    return seed == null ? "no published row | |" : Double.isNaN(seed.cpuPercent())
                            ? String.format(Locale.ROOT, "%,.0f | not published | not published", seed.rate())
                            : String.format(Locale.ROOT, "%,.0f | %.2f | %.2f",
                            seed.rate(), seed.cpuPercent(), seed.cpuMillisPerMessage());
                });
        md.append("\nCPU ms/msg: the server process's CPU per flow invocation (queue manager and flow together, as the ")
                .append("seed's whole-machine figure); for the ceiling, the CPU of the loop's thread.\n");
    }

    /**
     * A table with a row per size: for each target the {@code columns} of its peak step (or why it has none), then
     * the seed's three columns.
     */
    private static void peakTable(StringBuilder md, String workload, boolean persistent, TreeSet<Integer> sizes,
                                  Map<String, List<StepResult>> results,
                                  List<String> columns, Function<StepResult, List<String>> cells, String seedColumns,
                                  IntFunction<String> seedCells) {
        md.append("| Test |");
        results.keySet().forEach(t -> md.append(' ').append(t).append(' ').append(String.join(" | ", columns)).append(" |"));
        md.append(' ').append(seedColumns).append(" |\n|---|");
        results.keySet().forEach(t -> md.append("---:|".repeat(columns.size())));
        md.append("---:|---:|---:|\n");
        for (int size : sizes) {
            md.append("| ").append(workload).append(' ').append(Sizes.label(size))
                    .append(persistent ? " persistent |" : " non-persistent |");
            for (List<StepResult> steps : results.values()) {
                StepResult p = peak(steps.stream().filter(s -> s.messageSize() == size).toList());
                if (p == null) {
                    String why = steps.stream().filter(s -> s.messageSize() == size && s.unavailable() != null)
                            .map(StepResult::unavailable).findFirst().orElse("no result");
                    md.append(" unavailable: ").append(why.replace("|", "/")).append(" |").append(" |".repeat(columns.size() - 1));
                } else {
                    cells.apply(p).forEach(cell -> md.append(' ').append(cell).append(" |"));
                }
            }
            md.append(' ').append(seedCells.apply(size)).append(" |\n");
        }
    }

    private static String rateCell(StepResult p) {
        return Sizes.rate(p.medianRate()) + (p.passed() ? "" : " (check FAILED)");
    }

    private static String millis(double micros) {
        return Double.isNaN(micros) ? "n/a" : String.format(Locale.ROOT, "%.3g", micros / 1000);
    }

    /** Groups steps by target, keeping the order targets were run in. */
    public static Map<String, List<StepResult>> byTarget(List<StepResult> steps) {
        Map<String, List<StepResult>> map = new LinkedHashMap<>();
        for (StepResult s : steps) {
            map.computeIfAbsent(s.target(), t -> new java.util.ArrayList<>()).add(s);
        }
        return map;
    }
}
