package org.wharfmq.perf.report;

import org.wharfmq.perf.workload.RatedSteps;
import org.wharfmq.perf.workload.Sizes;
import org.wharfmq.perf.workload.StepResult;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The report of a rated request/reply run (RR-RATED), shaped like the seeds' rated scaling tables: per target and
 * message size, every step's clients, the rate asked for and the rate achieved, the median and 95th percentile
 * response times over all requesters and the median of each requester JVM, and the clients served at the threshold
 * (the largest step that served them, {@link RatedSteps#notServed}), and what stopped the stepping: a median past the
 * threshold (over all requesters or a requester JVM's), an overload, a failed check, or a limit of the machine that the
 * next step was past.
 */
public final class RatedReport {

    private RatedReport() {
    }

    /**
     * The Markdown text.
     *
     * @param description what the workload is
     * @param rate        round trips per second asked of each requester
     * @param command     the command line that produced the results
     * @param results     per target, its steps in order
     * @param charts      per message size, the chart's file name
     */
    public static String render(String description, double rate, String command, Map<String, List<StepResult>> results,
                                Map<Integer, String> charts) {
        StringBuilder md = new StringBuilder();
        md.append("## RR-RATED: ").append(description).append("\n\n");
        md.append("Command: `").append(command).append("`  \n");
        md.append("Machine: ").append(Machine.describe()).append("  \n");
        md.append(String.format(Locale.ROOT, "Each requester asks for %s round trips/s. Achieved: the round trips of the measured "
                + "period per second, all requester JVMs added up (the mean: at 1.5 a second each requester makes 1 round "
                + "trip one second and 2 the next, so per-second medians swing). Response time: from when a request was due "
                + "in its requester's schedule (one that fell behind and caught up counts its wait) to its reply, every "
                + "requester's (p50, p95), and each requester JVM's median (p50 per JVM, the JVMs in order). Served: the "
                + "step passed its checks, had no request still queued past the timeout at its end (overloaded: the "
                + "requesters waiting on those replies, the others at their rate, the median of the replies that came can "
                + "look served), and its median response time stayed within %d s over all its requesters and within each "
                + "requester JVM (a JVM holds an even share of the requesters; one past it is that share mostly waiting "
                + "past it). Clients served: the largest step that served them.%n%n",
                Sizes.decimal(rate), RatedSteps.THRESHOLD_SECONDS));
        TreeSet<Integer> sizes = new TreeSet<>();
        results.values().forEach(steps -> steps.forEach(s -> sizes.add(s.messageSize())));
        for (Map.Entry<String, List<StepResult>> e : results.entrySet()) {
            for (int size : sizes) {
                List<StepResult> steps = e.getValue().stream().filter(s -> s.messageSize() == size).toList();
                if (steps.isEmpty()) {
                    continue;
                }
                md.append("### ").append(e.getKey()).append(", ").append(Sizes.label(size)).append(": ")
                        .append(RatedSteps.clientsServed(steps)).append(" clients served\n\n");
                md.append("Stopped: ").append(RatedSteps.stoppedBy(steps)).append(".\n\n");
                md.append("| Clients | Responders | Asked (round trips/s) | Achieved | Server CPU% | p50 | p95 | p50 per JVM "
                        + "| Served | Check |\n");
                md.append("|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n");
                for (StepResult s : steps) {
                    if (s.unavailable() != null) {
                        md.append("| ").append(s.clients()).append(" | | | | | | | | | not run: ").append(s.unavailable()).append(" |\n");
                        continue;
                    }
                    md.append(String.format(Locale.ROOT, "| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |%n", s.clients(),
                            s.responders(), Sizes.rate(s.clients() * rate), Sizes.rate(s.meanRate()), Sizes.percent(s.cpuPercent()),
                            Sizes.micros(s.latencyMicros().p50()), Sizes.micros(s.latencyMicros().p95()),
                            RatedSteps.jvmMedians(s), RatedSteps.served(s) ? "yes" : "no", check(s)));
                }
                String chart = charts.get(size);
                if (chart != null) {
                    md.append("\n![").append(Sizes.label(size)).append("](").append(chart).append(")\n");
                }
                md.append('\n');
            }
        }
        return md.toString();
    }

    /**
     * PASSED (with the overload, when requests were still queued at the end), or FAILED with the number of problems
     * and the first.
     */
    private static String check(StepResult s) {
        if (s.passed()) {
            return RatedSteps.overloaded(s) ? "PASSED; " + RatedSteps.overload(s) : "PASSED";
        }
        List<String> problems = s.problems();
        return problems.isEmpty() ? "FAILED" : problems.size() == 1 ? "FAILED: " + problems.get(0)
                : "FAILED: " + problems.size() + " problems, the first: " + problems.get(0);
    }
}
