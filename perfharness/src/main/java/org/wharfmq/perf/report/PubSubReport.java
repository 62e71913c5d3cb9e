package org.wharfmq.perf.report;

import org.wharfmq.perf.workload.Sizes;
import org.wharfmq.perf.workload.StepResult;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The report of a publish/subscribe run (PS-N, PS-T, PS-D), shaped like the seeds' "Publish Subscribe" tables:
 * a row per message size and subscriber count (PS-T: dummy subscription count) with each target's deliveries/s,
 * delivery latency, server CPU% and CPU per delivery side by side, the seed's published row for reference, then every
 * step.
 */
public final class PubSubReport {

    private PubSubReport() {
    }

    /**
     * The Markdown text.
     *
     * @param workload    PS-N, PS-T or PS-D
     * @param description what the workload is
     * @param persistent  persistent publications (always for PS-D)
     * @param command     the command line that produced the results
     * @param results     per target, its steps in order
     * @param charts      per message size, the chart's file name
     */
    public static String render(String workload, String description, boolean persistent, String command,
                                Map<String, List<StepResult>> results, Map<Integer, String> charts) {
        boolean topics = workload.equals("PS-T");
        boolean pp = persistent || workload.equals("PS-D");
        StringBuilder md = new StringBuilder();
        md.append("## ").append(workload).append(": ").append(description).append("\n\n");
        md.append("Command: `").append(command).append("`  \n");
        md.append("Machine: ").append(Machine.describe()).append("  \n");
        md.append("Counted: deliveries/s to subscribers, counted at the subscribers (what every subscriber JVM received ")
                .append("in each wall-clock second of the publisher's measured period, added up), median of those ")
                .append("per-second totals after the warm-up; the publisher is held within a window of ")
                .append("the slowest subscriber, so this is what the subscribers took. CPU% is the server process's share ")
                .append("of the whole machine (all cores), from /proc. Layout: publisher in one JVM; subscribers in JVMs ")
                .append("of their own, at most 250 per JVM, a thread and session each, 25 sessions per connection. ")
                .append("Delivery latency: from just before the publisher's send to the subscriber's receive returning it, ")
                .append("wall clock (one machine), for every publication of the measured period at every subscriber; ")
                .append("p50 / p90 / p99 / max.\n\n");
        TreeSet<Integer> sizes = new TreeSet<>();
        TreeSet<Integer> counts = new TreeSet<>();
        results.values().forEach(steps -> steps.forEach(s -> {
            sizes.add(s.messageSize());
            counts.add(s.clients());
        }));
        md.append(topics ? "| Test | Dummy subscriptions |" : "| Test | Subscribers |");
        results.keySet().forEach(t -> md.append(' ').append(t).append(" deliveries/s | latency p50 / p90 / p99 / max | CPU% | CPU us per delivery |"));
        md.append(topics ? " vs no dummies |\n|---|---:|" : " Seed 002 4KB Msgs/sec | % CPU Busy | CPU ms/msg |\n|---|---:|");
        results.keySet().forEach(t -> md.append("---:|---:|---:|---:|"));
        md.append(topics ? "---|\n" : "---:|---:|---:|\n");
        for (int size : sizes) {
            for (int count : counts) {
                md.append("| ").append(workload).append(' ').append(Sizes.label(size)).append(pp ? " persistent" : " non-persistent")
                        .append(" | ").append(String.format(Locale.ROOT, "%,d", count)).append(" |");
                StringBuilder versus = new StringBuilder();
                for (Map.Entry<String, List<StepResult>> e : results.entrySet()) {
                    StepResult s = find(e.getValue(), size, count);
                    if (s == null) {
                        md.append(" no result | | | |");
                    } else if (s.unavailable() != null) {
                        md.append(" unavailable: ").append(s.unavailable().replace("|", "/")).append(" | | | |");
                    } else {
                        md.append(' ').append(Sizes.rate(s.medianRate())).append(s.passed() ? "" : " (check FAILED)")
                                .append(" | ").append(Sizes.latency(s.latencyMicros()))
                                .append(" | ").append(Sizes.percent(s.cpuPercent()).replace("%", ""))
                                .append(" | ").append(Sizes.decimal(s.cpuMicrosPerOp())).append(" |");
                        StepResult base = find(e.getValue(), size, counts.first());
                        if (topics && base != null && base.medianRate() > 0 && base.unavailable() == null) {
                            versus.append(versus.isEmpty() ? "" : ", ").append(e.getKey()).append(String.format(Locale.ROOT,
                                    " %.2f", s.medianRate() / base.medianRate()));
                        }
                    }
                }
                if (topics) {
                    md.append(' ').append(versus).append(" |\n");
                } else {
                    PubSubSeedRows.Row seed = PubSubSeedRows.find(count, pp);
                    md.append(seed == null ? " no published row | | |\n" : String.format(Locale.ROOT, " %,.0f | %.2f | %.2f |%n",
                            seed.rate(), seed.cpuPercent(), seed.cpuMillisPerMessage()));
                }
            }
        }
        md.append('\n');
        md.append(topics ? PubSubSeedRows.DUMMY_SUBSCRIPTIONS + "\n\n"
                : "The seed rows are report 002 (WebSphere Message Broker V6.1, 4-way POWER5, 2008), 4 KB, whatever "
                + "size ran here: a reference from other hardware and software, not a target.\n\n");
        ratios(md, workload, results, sizes, counts);
        for (Map.Entry<String, List<StepResult>> e : results.entrySet()) {
            md.append("### ").append(e.getKey()).append(", every step\n\n");
            md.append(topics ? "| Size | Dummy subscriptions | Subscribers |" : "| Size | Subscribers | Subscriber JVMs |")
                    .append(" Median deliveries/s | Mean deliveries/s | Delivery latency p50 / p90 / p99 / max | Server CPU% |")
                    .append(" CPU us per delivery | Check |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
            for (StepResult s : e.getValue()) {
                if (s.unavailable() != null) {
                    md.append(String.format(Locale.ROOT, "| %s | %d | | unavailable: %s | | | | | |%n", Sizes.label(s.messageSize()),
                            s.clients(), s.unavailable().replace("|", "/")));
                    continue;
                }
                md.append(String.format(Locale.ROOT, "| %s | %d | %d | %s | %s | %s | %s | %s | %s |%n",
                        Sizes.label(s.messageSize()), s.clients(), s.responders(), Sizes.rate(s.medianRate()),
                        Sizes.rate(s.meanRate()), Sizes.latency(s.latencyMicros()), Sizes.percent(s.cpuPercent()), Sizes.decimal(s.cpuMicrosPerOp()),
                        s.passed() ? "passed" : "FAILED: " + String.join("; ", s.problems()).replace("|", "/")));
            }
            md.append('\n');
        }
        charts.forEach((size, file) -> md.append("![").append(workload).append(' ').append(Sizes.label(size))
                .append(": deliveries/s against ").append(topics ? "dummy subscriptions" : "subscribers").append("](")
                .append(file).append(")\n\n"));
        return md.toString();
    }

    private static void ratios(StringBuilder md, String workload, Map<String, List<StepResult>> results,
                               TreeSet<Integer> sizes, TreeSet<Integer> counts) {
        ratioLines(workload, results).forEach(line -> md.append(line).append("\n\n"));
    }

    /**
     * With two targets, the first's deliveries/s over the second's at each size and count (subscribers, or PS-T's
     * dummy subscriptions), e.g. {@code PS-N 2KB at 100: Wharf / Artemis deliveries/s = 3.10}, with both median
     * delivery latencies when both were measured.
     */
    public static List<String> ratioLines(String workload, Map<String, List<StepResult>> results) {
        List<String> lines = new java.util.ArrayList<>();
        if (results.size() != 2) {
            return lines;
        }
        TreeSet<Integer> sizes = new TreeSet<>();
        TreeSet<Integer> counts = new TreeSet<>();
        results.values().forEach(steps -> steps.forEach(s -> {
            sizes.add(s.messageSize());
            counts.add(s.clients());
        }));
        List<String> names = List.copyOf(results.keySet());
        for (int size : sizes) {
            for (int count : counts) {
                StepResult a = find(results.get(names.get(0)), size, count);
                StepResult b = find(results.get(names.get(1)), size, count);
                if (a != null && b != null && a.unavailable() == null && b.unavailable() == null && b.medianRate() > 0) {
                    String latency = a.latencyMicros().count() > 0 && b.latencyMicros().count() > 0
                            ? String.format(Locale.ROOT, "; median delivery latency %s vs %s",
                            Sizes.micros(a.latencyMicros().p50()), Sizes.micros(b.latencyMicros().p50())) : "";
                    lines.add(String.format(Locale.ROOT, "%s %s at %,d: %s / %s deliveries/s = %.2f (%s vs %s)%s%s", workload,
                            Sizes.label(size), count, names.get(0), names.get(1), a.medianRate() / b.medianRate(),
                            Sizes.rate(a.medianRate()), Sizes.rate(b.medianRate()), latency,
                            a.passed() && b.passed() ? "" : " (a check FAILED)"));
                }
            }
        }
        return lines;
    }

    private static StepResult find(List<StepResult> steps, int size, int count) {
        return steps.stream().filter(s -> s.messageSize() == size && s.clients() == count).findFirst().orElse(null);
    }
}
