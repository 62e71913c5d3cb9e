package org.wharfmq.perf.workload;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.wharfmq.perf.driver.DriverResult;
import org.wharfmq.perf.driver.LatencySummary;
import org.wharfmq.perf.driver.SubscriberCount;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Runs a workload step by step: for each message size and client count it starts a fresh server (unless told to
 * use a running one), the background drivers (responders, consumers), then the measured drivers (requesters,
 * producers); waits for them, stops everything, and turns the drivers' JSON results and the server's CPU time
 * into a {@link StepResult}.
 */
public final class WorkloadRunner {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final RunSettings settings;
    private final Launcher launcher;
    private final Consumer<String> progress;

    /** A runner for {@code settings}, starting processes with {@code launcher}, telling {@code progress} how it goes. */
    public WorkloadRunner(RunSettings settings, Launcher launcher, Consumer<String> progress) {
        this.settings = settings;
        this.launcher = launcher;
        this.progress = progress;
    }

    /** Every step on {@code target}. */
    public List<StepResult> run(Target target) throws Exception {
        List<StepResult> results = new ArrayList<>();
        for (int size : settings.sizes()) {
            for (int clients : settings.clients()) {
                StepResult r = step(target, size, clients);
                results.add(r);
                progress.accept(describe(r));
                if (r.unavailable() != null) {
                    return results;   // the next steps would say the same
                }
            }
        }
        return results;
    }

    /** The one-line progress report of a step. */
    static String describe(StepResult r) {
        if (r.unavailable() != null) {
            return String.format("%s %s %s: unavailable (%s)", r.workload(), r.target(), Sizes.label(r.messageSize()), r.unavailable());
        }
        return String.format("%s %s %s clients=%d: median %,.0f %s, server CPU %s, %s us CPU per op, p50 %s p99 %s [check %s]",
                r.workload(), r.target(), Sizes.label(r.messageSize()), r.clients(), r.medianRate(),
                r.workload().startsWith("OW") ? "msg/s" : r.workload().startsWith("PS") ? "deliveries/s" : "rt/s", Sizes.percent(r.cpuPercent()), Sizes.decimal(r.cpuMicrosPerOp()),
                Sizes.micros(r.latencyMicros().p50()), Sizes.micros(r.latencyMicros().p99()), r.passed() ? "PASSED" : "FAILED");
    }

    private StepResult step(Target target, int size, int clients) throws Exception {
        Workload w = settings.workload();
        int responders = settings.responders() > 0 ? settings.responders() : Math.max(1, clients / 2);
        if (w == Workload.RR_4B) {
            responders = Math.max(responders, settings.queues());
        }
        if (w == Workload.OW_1) {
            responders = clients;
        }
        PubSubPlan ps = w.publishSubscribe() ? new PubSubPlan(w, clients, settings.responders()) : null;
        if (ps != null) {
            responders = ps.reportedResponders();
        }
        progress.accept(String.format("%s %s %s clients=%d responders=%d: %d s warm-up + %d s measured...", w.id(),
                target.displayName(), Sizes.label(size), clients, responders, settings.warmupSeconds(), settings.runSeconds()));
        Path dir = Files.createDirectories(settings.output().resolve("steps"));
        String stepName = target.name().toLowerCase() + "-" + size + "-" + clients;
        DriverPlan plan = new DriverPlan(w, settings, size, clients, responders, dir, stepName);

        List<Launched> started = new ArrayList<>();
        try {
            Launched server = null;
            String tcpUrl = settings.url();
            if (tcpUrl == null) {
                server = launcher.launch(target.displayName().toLowerCase() + "-server",
                        target.serverCommand(plan.hostedDrivers(), settings.persistent()));
                started.add(server);
                String ready = server.awaitLine(ServerMain.READY_PREFIX, START_TIMEOUT);
                tcpUrl = field(ready, "tcp");
            } else if (!plan.hostedDrivers().isEmpty()) {
                throw new UnsupportedOperationException(w.id() + " runs its clients inside the server JVM: it cannot use a running server (--url)");
            }
            List<String> provider = target.providerArgs(tcpUrl);
            List<Launched> background = new ArrayList<>();
            for (DriverPlan.Spec spec : plan.clientBackground()) {
                Launched l = launcher.launch(spec.id(), spec.args(provider));
                started.add(l);
                background.add(l);
                l.awaitLine(org.wharfmq.perf.driver.Driver.READY_LINE, START_TIMEOUT);
            }
            CpuSampler cpu = server == null ? null : new CpuSampler(server.pid());
            try {
                Duration runTimeout = Duration.ofSeconds(settings.warmupSeconds() + settings.runSeconds() + settings.timeoutSeconds() + 120L);
                for (DriverPlan.Spec spec : plan.clientMeasured()) {
                    Launched l = launcher.launch(spec.id(), spec.args(provider));
                    started.add(l);
                }
                for (Launched l : started.subList(started.size() - plan.clientMeasured().size(), started.size())) {
                    l.awaitExit(runTimeout);
                }
                for (String id : plan.hostedMeasuredIds()) {
                    server.awaitLine(ServerMain.DRIVER_DONE_PREFIX + " id=" + id, runTimeout);
                }
                for (Launched l : background) {
                    l.stop();
                }
                for (Launched l : background) {
                    l.awaitExit(Duration.ofSeconds(settings.timeoutSeconds() + 60L));
                }
                if (server != null) {
                    server.stop();
                    server.awaitExit(Duration.ofSeconds(60));
                }
                return evaluate(target, size, clients, responders, plan, cpu, ps);
            } finally {
                if (cpu != null) {
                    cpu.close();
                }
            }
        } catch (UnsupportedOperationException e) {
            return unavailable(target, size, clients, responders, e.getMessage());
        } finally {
            for (Launched l : started) {
                l.close();
            }
        }
    }

    private StepResult unavailable(Target target, int size, int clients, int responders, String why) {
        return new StepResult(settings.workload().id(), target.displayName(), size, clients, responders, 0, 0, Double.NaN,
                Double.NaN, new LatencySummary(0, 0, 0, 0, 0, 0, 0), false, why, List.of());
    }

    private static String field(String line, String name) {
        for (String part : line.split(" ")) {
            if (part.startsWith(name + "=")) {
                return part.substring(name.length() + 1);
            }
        }
        throw new IllegalStateException("no " + name + "= in '" + line + "'");
    }

    private StepResult evaluate(Target target, int size, int clients, int responders, DriverPlan plan, CpuSampler cpu,
                                PubSubPlan ps) throws IOException {
        List<DriverResult> measured = new ArrayList<>();
        List<DriverResult> background = new ArrayList<>();
        for (DriverPlan.Spec spec : plan.allSpecs()) {
            Path file = spec.json();
            if (!Files.exists(file)) {
                return new StepResult(settings.workload().id(), target.displayName(), size, clients, responders, 0, 0,
                        Double.NaN, Double.NaN, new LatencySummary(0, 0, 0, 0, 0, 0, 0), false, null,
                        List.of(spec.id() + " wrote no result (" + file + "): it failed to start or was killed"));
            }
            DriverResult r = JSON.readValue(file.toFile(), DriverResult.class);
            (spec.measured() ? measured : background).add(r);
        }
        List<String> problems = new ArrayList<>();
        String unavailable = null;
        for (DriverResult r : concat(measured, background)) {
            if (r.unavailable() != null) {
                unavailable = r.unavailable();
            }
            r.problems().forEach(p -> problems.add(r.processId() + ": " + p));
        }
        if (unavailable != null) {
            return unavailable(target, size, clients, responders, unavailable);
        }
        problems.addAll(crossCheck(measured, background));
        // publish/subscribe counts deliveries: each publication reached fanOut subscribers (checked above)
        int perOp = ps == null ? 1 : ps.fanOut();
        if (ps != null) {
            problems.addAll(PubSubCheck.subscriberCount(ps.subscribers(), background));
        }
        double median = perOp * measured.stream().mapToDouble(DriverResult::medianRate).sum();
        double mean = perOp * measured.stream().mapToDouble(DriverResult::meanRate).sum();
        DriverResult main = measured.get(0);
        double cpuPercent = Double.NaN;
        double cpuPerOp = Double.NaN;
        if (cpu != null) {
            double[] used = cpu.between(main.windowStartMillis(), main.windowEndMillis());
            if (!Double.isNaN(used[0]) && used[1] > 0) {
                cpuPercent = 100.0 * used[0] / used[1] / Runtime.getRuntime().availableProcessors();
                cpuPerOp = mean > 0 ? used[0] / used[1] / mean * 1e6 : Double.NaN;
            }
        }
        return new StepResult(settings.workload().id(), target.displayName(), size, clients, responders, median, mean,
                cpuPercent, cpuPerOp, main.latencyMicros(), problems.isEmpty(), null, problems);
    }

    /**
     * The checks that need more than one process: every message a sender sent was received exactly once (the
     * receivers' distinct counts match the senders' counts; a receiver's own duplicates are already counted), and
     * every message published reached every subscriber of its topic.
     */
    static List<String> crossCheck(List<DriverResult> measured, List<DriverResult> background) {
        List<String> problems = new ArrayList<>();
        Map<String, Long> sent = new TreeMap<>();
        Map<String, Long> received = new TreeMap<>();
        for (DriverResult r : concat(measured, background)) {
            r.sent().forEach((k, v) -> sent.merge(k, v, Long::sum));
            r.received().forEach((k, v) -> received.merge(k, v, Long::sum));
        }
        sent.forEach((source, count) -> {
            long got = received.getOrDefault(source, 0L);
            if (got < count) {
                problems.add("loss: " + (count - got) + " of the " + count + " messages from " + source + " were never received");
            } else if (got > count) {
                problems.add("duplicate: " + (got - count) + " messages from " + source + " were received by more than one process");
            }
        });
        Map<String, Long> published = new TreeMap<>();
        concat(measured, background).forEach(r -> r.published().forEach((k, v) -> published.merge(k, v, Long::sum)));
        for (DriverResult r : concat(measured, background)) {
            for (SubscriberCount sub : r.subscribers()) {
                published.forEach((source, count) -> {
                    if (source.startsWith(sub.topic() + "/")) {
                        long got = sub.received().getOrDefault(source, 0L);
                        if (got != count) {
                            problems.add("loss: a subscriber of " + sub.topic() + " (" + r.processId() + ") received " + got
                                    + " of the " + count + " messages " + source + " published");
                        }
                    }
                });
            }
        }
        received.keySet().stream().filter(k -> !sent.containsKey(k))
                .forEach(k -> problems.add("unexpected: messages from " + k + ", which no sender of this run reported"));
        return problems;
    }

    private static List<DriverResult> concat(List<DriverResult> a, List<DriverResult> b) {
        List<DriverResult> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
