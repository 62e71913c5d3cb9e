package org.wharfmq.perf.workload;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.wharfmq.perf.driver.LatencySummary;
import org.wharfmq.perf.flow.BenchmarkFlow;
import org.wharfmq.perf.options.OptionException;
import org.wharfmq.perf.options.PerfOptions;
import org.wharfmq.perf.report.MarkdownReport;
import org.wharfmq.perf.report.PubSubReport;
import org.wharfmq.perf.report.RatedReport;
import org.wharfmq.perf.report.SvgChart;

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
 * {@code wharf perf run WORKLOAD [options]} and {@code wharf perf compare WORKLOAD [options]}: runs the steps,
 * prints progress, writes {@code report.md}, {@code results.json} and a chart per message size.
 */
public final class RunCommand {

    private static final String HELP = """
            Usage: wharf perf run|compare WORKLOAD [options]
              WORKLOAD            RR-1 RR-2 RR-2b RR-3 RR-4 RR-4b RR-5 RR-5b RR-RATED RR-SHORT CONNECT OW-1 OW-5 PS-N PS-T
                                  PS-D F-PASS F-HDR F-PUB
                                  F-PARSE F-WRITE F-VALID F-FILTER-FIRST F-FILTER-LAST F-OPAQUE F-ROUTE F-COMPUTE F-XSLT
                                  F-CSV-PARSE F-CSV-WRITE F-FIXED-PARSE F-FIXED-WRITE F-DB-INSERT F-DB-UPDATE
                                  F-DB-RETRIEVE F-DB-ROUTE F-HTTP F-FILE F-FILE-OUT F-JMS
              --sizes LIST        message sizes, e.g. 2k,20k,200k            [2k; F-*: 4k]
                                  (F-*: the seed's sale message, SaleList repeated to about that size)
                                  (F-CSV-PARSE, F-FIXED-PARSE: that message's items as records)
              --requesters LIST   client counts to step through             [1,2,4,8,16,32,64; F-*: 20;
                                  RR-RATED: 10,50,100,250,500,1000,2000,3000,4000,6000,8000,12000,
                                  16000,24000,32000, stopping after the first step whose median
                                  response time (from each request's due time) passes 1 s, over
                                  all its requesters or in a requester JVM, or that is overloaded
                                  or fails, or before the first step past a limit of this machine:
                                  file descriptors (ulimit -n), ephemeral ports, threads, memory
                                  for the requester JVMs' heaps (--jvm-opts)]
              --instances LIST    F-*: flow instances to step through        [1]
              --responders N      responders per step (0 = half the requesters; RR-RATED: 10)  [0]
              --queues N          RR-4b, RR-5b request queues, RR-2b, RR-5 request/reply queue pairs  [4]
              --channels N        RR-5, RR-5b, OW-5: channels each way between the two queue managers, 1 to 10;
                                  queue k travels on channel ((k - 1) mod N) + 1   [1]
              --rate R            OW-1, OW-5: messages/s per producer       [1000]
                                  RR-RATED: round trips/s per requester      [1.5]
                                  RR-SHORT, CONNECT: sessions/s per client (0 = as fast as it goes)  [0]
              --subscribers LIST  PS-N, PS-D, F-PUB: subscriber counts to step through  [1,10,100]
                                  PS-T: subscribers (and topics), one value  [10]
              --dummies LIST      PS-T: dummy subscription counts to step through  [0,1000,10000]
              --run-length S      measured seconds per step                  [20]
              --warmup S          warm-up seconds per step (not counted)     [20]
              --timeout S         a reply later than this is late, not lost  [10 + 4 per whole MB:
                                  2k: 10, 8m: 42]
              --persistent        persistent messages, responders commit each round trip
              --correlation MODE  message: a reply selected by the request's JMSMessageID, a consumer per
                                  request (the spec's rule); thread: one correlation id and consumer per
                                  requester (JMSPerfHarness -co true)        [message]
              --tls ENGINE        clients connect over TLS (jdk or openssl engine on the server; a throwaway
                                  self-signed certificate); with --url, give an ssl:// URL with its options instead;
                                  RR-5, RR-5b and OW-5: the channels connect over TLS, the clients over TCP
              --security rules    the server has users and permission rules: every client logs in (SCRAM-SHA-256)
                                  and every producer, consumer and anonymous send is checked (Wharf only)
              --metrics on|scrape the server runs its metrics (Micrometer, JMX) and HTTP listener; with
                                  scrape it also scrapes its own /metrics every second (Wharf only)
              --database DB       F-DB-*: h2 (an embedded H2 each for the flow and its loop) or postgres
                                  (a PostgreSQL server started for the run from zonky's binaries); h2-xa,
                                  postgres-xa: the same with the flow's data source xa: true  [h2]
              --url URL           use a running Wharf instead of starting one (no CPU figures)
              --peer PEER         artemis (ActiveMQ Artemis) or classic (ActiveMQ Classic), built in;
                                  replicated (Wharf as a replicated queue manager: three wharf server
                                  members on this machine, RR-4, RR-4b and OW-1); or relay (a bare Netty
                                  relay, RR-1 to RR-4 only: the floor of a round trip); run: on the peer
                                  instead of Wharf; compare: the peer to compare with  [artemis]
              --out DIR           report directory       [perf-results/WORKLOAD-TIMESTAMP]
              --jvm-opts "OPTS"   options of the child JVMs                  [-Xmx1g]
              --in-process        everything in this JVM (a quick check, not a measurement)
              --verbose           show every line the child processes print
            """;

    /**
     * Warm-up seconds per step when {@code --warmup} is not given. On a 2-core machine the server's and the
     * clients' JIT compilers take 30-40 s of CPU between them before they settle; with a 5 s warm-up RR-4 measured
     * a third below its settled rate. Each step reports the compilers' share of the measured period (JIT%).
     */
    static final int DEFAULT_WARMUP_SECONDS = 20;

    /** Closed-loop requesters of a flow workload, as the spec's "20 threads by default". */
    static final int DEFAULT_FLOW_REQUESTERS = 20;

    private RunCommand() {
    }

    /** Runs {@code args}; {@code compare} runs Wharf then the peer. Returns the exit status. */
    public static int run(String[] args, boolean compare) throws Exception {
        if (args.length == 0 || PerfOptions.helpAsked(args)) {
            System.out.println(HELP);
            return args.length == 0 ? 2 : 0;
        }
        Parsed p = parse(args, compare);
        Consumer<String> progress = line -> {
            System.out.println(line);
            System.out.flush();
        };
        Consumer<String> echo = p.verbose ? progress : line -> {
            // PS-T's dummy subscriptions as the server confirms them: minutes on a peer, which would otherwise pass in silence
            if (line.contains("rate=") && !line.contains("medianRate") || line.contains("problem:") || line.contains("unavailable:")
                    || line.contains(org.wharfmq.perf.driver.Driver.DUMMIES_LINE)) {
                progress.accept("  " + line);
            }
        };
        List<StepResult> all;
        try (RunDatabase database = RunDatabase.start(p.database, progress)) {
            List<String> jvmOptions = new ArrayList<>(p.settings.jvmOptions());
            jvmOptions.addAll(database.jvmOptions());
            Launcher launcher = p.settings.inProcess() ? new InProcessLauncher(echo) : new ChildJvmLauncher(jvmOptions, echo);
            all = execute(p.settings, p.targets, launcher, progress);
        }
        String command = "bin/wharf perf " + (compare ? "compare " : "run ") + String.join(" ", args);
        writeReport(p.settings, all, command);
        for (Map.Entry<String, List<StepResult>> e : MarkdownReport.byTarget(all).entrySet()) {
            for (int size : p.settings.sizes()) {
                StepResult peak = MarkdownReport.peak(e.getValue().stream().filter(s -> s.messageSize() == size).toList());
                if (peak != null) {
                    progress.accept(String.format("peak %s %s %s: %s %s at %d clients, server CPU %s", p.settings.workload().id(),
                            e.getKey(), Sizes.label(size), Sizes.rate(peak.medianRate()), p.settings.workload().unit(),
                            peak.clients(), Sizes.percent(peak.cpuPercent())));
                }
            }
        }
        if (p.settings.workload() == Workload.RR_RATED) {
            for (Map.Entry<String, List<StepResult>> e : MarkdownReport.byTarget(all).entrySet()) {
                for (int size : p.settings.sizes()) {
                    List<StepResult> steps = e.getValue().stream().filter(s -> s.messageSize() == size).toList();
                    if (steps.isEmpty()) {
                        continue;
                    }
                    progress.accept(String.format("served %s %s %s: %d clients at %s round trips/s each within a %d s median "
                                    + "response time; stopped: %s", p.settings.workload().id(), e.getKey(), Sizes.label(size),
                            RatedSteps.clientsServed(steps), Sizes.decimal(p.settings.rate()), RatedSteps.THRESHOLD_SECONDS,
                            RatedSteps.stoppedBy(steps)));
                }
            }
        }
        if (compare) {
            printRatios(p.settings, p.targets.get(1), all, progress);
        }
        progress.accept("report: " + p.settings.output().resolve("report.md"));
        boolean failed = all.stream().anyMatch(s -> s.unavailable() == null && !s.passed());
        return failed ? 1 : 0;
    }

    /** Runs every target's steps in turn, and a flow's plain loops afresh. */
    public static List<StepResult> execute(RunSettings settings, List<Target> targets, Launcher launcher, Consumer<String> progress) throws Exception {
        return execute(settings, targets, launcher, PlainLoopTimings.eachRun(), progress);
    }

    /**
     * Runs every target's steps in turn, then a flow's plain loops, each timed afresh or reused from {@code loops}
     * (a report's earlier row of the same flow and size).
     */
    static List<StepResult> execute(RunSettings settings, List<Target> targets, Launcher launcher, PlainLoopTimings loops,
                                    Consumer<String> progress) throws Exception {
        List<StepResult> all = new ArrayList<>();
        BenchmarkFlow flow = settings.workload().flow();
        boolean ceilings = flow != null && flow.hasCeiling();
        boolean applications = ceilings && flow.hasJmsApplicationLoop();
        // a loop bound by disk syncs is timed on both sides of the flow's steps: the disk may not stay the same
        Map<Integer, BenchmarkFlow.Ceiling> before = new java.util.HashMap<>();
        Map<Integer, BenchmarkFlow.Ceiling> applicationBefore = new java.util.HashMap<>();
        for (int size : settings.sizes()) {
            if (ceilings && flow.syncBound(settings.persistent())) {
                before.put(size, ceiling(settings, flow, size));
            }
            if (applications && settings.persistent()) { // its journal's syncs
                applicationBefore.put(size, jmsApplicationCeiling(settings, flow, size));
            }
        }
        for (Target t : targets) {
            all.addAll(new WorkloadRunner(settings, launcher, progress).run(t));
        }
        if (ceilings) {
            for (int size : settings.sizes()) {
                StepResult flowStep = MarkdownReport.peak(all.stream().filter(s -> s.messageSize() == size
                        && s.target().equals(Target.WHARF.displayName())).toList());
                BenchmarkFlow.Ceiling after = loops.time(flow, PlainLoopTimings.Loop.PLAIN, size, settings.persistent(),
                        ceilingWarmupMillis(settings), ceilingRunMillis(settings), () -> ceiling(settings, flow, size));
                BenchmarkFlow.Ceiling c = timing(before.get(size), after);
                StepResult loop = ceilingStep(settings, flow, "ceiling", flow.plainLoop(settings.persistent()),
                        plainLoop(flow, settings.persistent()), size, before.get(size), after, progress);
                if (flowStep != null && flowStep.allCpuMicrosPerOp() > 0 && flow.loopOnItsThread()) {
                    progress.accept(flow.id() + " " + Sizes.label(size) + cpuComparison("the loop's thread",
                            c.cpuMicrosPerOp(), flowStep));
                } else if (flowStep != null && flowStep.allCpuMicrosPerOp() > 0 && flow.loopWithMessaging()) {
                    progress.accept(flow.id() + " " + Sizes.label(size) + cpuComparison(LOOP_JVM,
                            c.processCpuMicrosPerOp(), flowStep));
                }
                if (flowStep != null && c.rate() > 0) {
                    progress.accept(String.format(java.util.Locale.ROOT, "%s %s: Wharf / loop = %.2f (%s/s against "
                                    + "%s/s in the plain loop: %s; issue 36's target: 0.77 or more)", flow.id(),
                            Sizes.label(size), flowStep.medianRate() / c.rate(), Sizes.rate(flowStep.medianRate()),
                            Sizes.rate(c.rate()), flow.plainLoop(settings.persistent())));
                }
                all.add(loop);
                if (applications) {
                    all.add(jmsApplicationStep(settings, flow, size, applicationBefore.get(size), flowStep, loops, progress));
                }
            }
        }
        return all;
    }

    /** The whole JVM of a loop with messaging: its thread and its own server. */
    private static final String LOOP_JVM = "the loop's JVM (its thread and its server)";

    /**
     * The second loop's row ({@link BenchmarkFlow#jmsApplicationLoop(boolean)}), timed as the ceiling is, and its
     * ratios to the flow, by rate and by CPU per operation (its whole JVM against the flow's JVMs): a second reference,
     * not the ratio issue 36's target is judged against.
     */
    private static StepResult jmsApplicationStep(RunSettings settings, BenchmarkFlow flow, int size,
                                                 BenchmarkFlow.Ceiling before, StepResult flowStep,
                                                 PlainLoopTimings loops, Consumer<String> progress) {
        BenchmarkFlow.Ceiling after = loops.time(flow, PlainLoopTimings.Loop.JMS_APPLICATION, size, settings.persistent(),
                ceilingWarmupMillis(settings), ceilingRunMillis(settings), () -> jmsApplicationCeiling(settings, flow, size));
        BenchmarkFlow.Ceiling c = timing(before, after);
        StepResult step = ceilingStep(settings, flow, "JMS application", flow.jmsApplicationLoop(settings.persistent()),
                jmsApplicationLoop(flow, settings.persistent()), size, before, after, progress);
        if (flowStep != null && c.rate() > 0) {
            progress.accept(String.format(java.util.Locale.ROOT, "%s %s against a JMS application doing the same work: "
                            + "Wharf / loop = %.2f (%s/s against %s/s)%s", flow.id(), Sizes.label(size),
                    flowStep.medianRate() / c.rate(), Sizes.rate(flowStep.medianRate()), Sizes.rate(c.rate()),
                    flowStep.allCpuMicrosPerOp() > 0 ? ";" + cpuComparison(LOOP_JVM, c.processCpuMicrosPerOp(), flowStep)
                            : ""));
        }
        return step;
    }

    /**
     * The comparison of a flow with a plain loop that holds on a busy machine, CPU per operation: {@code what} (F-FILE's
     * loop thread, which does all its work there, or the whole JVM of a loop with messaging) against the CPU of the
     * flow's JVMs (server and clients) per operation.
     */
    private static String cpuComparison(String what, double loopCpu, StepResult flowStep) {
        return String.format(java.util.Locale.ROOT, " by CPU per operation: %s %s us, the flow's JVMs (server and "
                        + "clients) %s us: loop/flow = %.2f", what, Sizes.decimal(loopCpu),
                Sizes.decimal(flowStep.allCpuMicrosPerOp()), loopCpu / flowStep.allCpuMicrosPerOp());
    }

    /** A loop's timing after the flow's steps, or for a sync-bound loop the mean of its timings before and after. */
    private static BenchmarkFlow.Ceiling timing(BenchmarkFlow.Ceiling before, BenchmarkFlow.Ceiling after) {
        return before == null ? after : BenchmarkFlow.Ceiling.mean(before, after);
    }

    /**
     * A loop's row, named {@code target}, and its progress line ({@code which}: the ceiling, or the JMS application):
     * its timing after the flow's steps, or for a sync-bound loop the mean of its timings before and after them, with
     * a problem (not a failure) when they differ by more than {@link #CEILING_DRIFT}.
     */
    private static StepResult ceilingStep(RunSettings settings, BenchmarkFlow flow, String which, String loopName,
                                          String target, int size, BenchmarkFlow.Ceiling before,
                                          BenchmarkFlow.Ceiling after, Consumer<String> progress) {
        BenchmarkFlow.Ceiling c = timing(before, after);
        List<String> problems = new ArrayList<>();
        String timings = "";
        if (before != null) {
            double drift = BenchmarkFlow.Ceiling.drift(before, after);
            timings = String.format(java.util.Locale.ROOT, "; the mean of %s/s before the flow's steps and %s/s after",
                    Sizes.rate(before.rate()), Sizes.rate(after.rate()));
            if (!(drift <= CEILING_DRIFT)) {
                problems.add(String.format(java.util.Locale.ROOT, "the disk-bound plain loop ran %.1f times faster on one "
                        + "side of the flow's steps than on the other (%s/s before, %s/s after): the disk's sync time "
                        + "changed, so the flow/loop ratio of this run says nothing; run again on a quieter disk",
                        drift, Sizes.rate(before.rate()), Sizes.rate(after.rate())));
            }
        }
        progress.accept(String.format(java.util.Locale.ROOT, "%s %s %s: %s/s in a plain loop on one thread (%s)%s, "
                + "%s us CPU and %,.0f bytes allocated each on its thread, %s us CPU each in its JVM", flow.id(), which,
                Sizes.label(size), Sizes.rate(c.rate()), loopName, timings,
                Sizes.decimal(c.cpuMicrosPerOp()), c.bytesPerOp(), Sizes.decimal(c.processCpuMicrosPerOp())));
        problems.forEach(p -> progress.accept(flow.id() + " " + which + " " + Sizes.label(size) + ": " + p));
        return new StepResult(settings.workload().id(), target, size, 1, 1, c.rate(),
                c.rate(), Double.NaN, c.cpuMicrosPerOp(), Double.NaN, Double.NaN, LatencySummary.NONE, true, null,
                problems);
    }

    /**
     * How far apart the two timings of a sync-bound plain loop may be (the faster over the slower) for the run's
     * flow/loop ratio to stand: past it the disk changed under the run.
     */
    static final double CEILING_DRIFT = 1.5;

    /**
     * How the name of a flow's ceiling (its plain loop: the flow's work, or what the flow stands in for, timed on one
     * thread) starts, as a target's; the rest says what the loop is ({@link BenchmarkFlow#plainLoop(boolean)}).
     */
    public static final String PLAIN_LOOP = "Plain loop";

    /**
     * The target name of {@code flow}'s ceiling in a persistent run or not, e.g.
     * {@code Plain loop (plain JMS loop, no flow engine)}.
     */
    public static String plainLoop(BenchmarkFlow flow, boolean persistent) {
        return PLAIN_LOOP + " (" + flow.plainLoop(persistent) + ")";
    }

    /** Whether {@code target} is a flow's ceiling rather than a server. */
    public static boolean isPlainLoop(String target) {
        return target.startsWith(PLAIN_LOOP + " (");
    }

    /**
     * How the name of a flow's second loop starts, as a target's ({@link BenchmarkFlow#jmsApplicationLoop(boolean)}):
     * a JMS application doing the flow's work, a reference beside the plain loop, not the one the target is judged
     * against.
     */
    public static final String JMS_APPLICATION = "JMS application";

    /** The target name of {@code flow}'s second loop, e.g. {@code JMS application (plain JMS loop with ..., no flow engine)}. */
    public static String jmsApplicationLoop(BenchmarkFlow flow, boolean persistent) {
        return JMS_APPLICATION + " (" + flow.jmsApplicationLoop(persistent) + ")";
    }

    /** Whether {@code target} is a flow's second loop ({@link #jmsApplicationLoop}) rather than a server. */
    public static boolean isJmsApplicationLoop(String target) {
        return target.startsWith(JMS_APPLICATION + " (");
    }
    /** Longest the ceiling loop is measured. */
    static final int CEILING_MAX_SECONDS = 10;
    /**
     * Longest the ceiling loop warms up: the step's own warm-up up to this. Saxon's XSLT and XPath take tens of
     * seconds of the JIT to reach their speed, as the flow in the server does during its warm-up; a shorter warm-up
     * would flatter the flow's ratio to its ceiling.
     */
    static final int CEILING_MAX_WARMUP_SECONDS = 30;

    /** Times the flow's own work on the message of {@code size} in a plain loop in this JVM (spec: "the ceiling"). */
    private static BenchmarkFlow.Ceiling ceiling(RunSettings settings, BenchmarkFlow flow, int size) {
        return flow.ceiling(flow.message(size), ceilingWarmupMillis(settings), ceilingRunMillis(settings),
                settings.persistent());
    }

    /** Times the flow's second loop, a JMS application doing its work, as {@link #ceiling} does the first. */
    private static BenchmarkFlow.Ceiling jmsApplicationCeiling(RunSettings settings, BenchmarkFlow flow, int size) {
        return flow.jmsApplicationCeiling(flow.message(size), ceilingWarmupMillis(settings), ceilingRunMillis(settings),
                settings.persistent());
    }

    private static long ceilingWarmupMillis(RunSettings settings) {
        return Math.min(settings.warmupSeconds(), CEILING_MAX_WARMUP_SECONDS) * 1000L;
    }

    private static long ceilingRunMillis(RunSettings settings) {
        return Math.min(settings.runSeconds(), CEILING_MAX_SECONDS) * 1000L;
    }

    private static void printRatios(RunSettings settings, Target peer, List<StepResult> all, Consumer<String> progress) {
        Map<String, List<StepResult>> byTarget = MarkdownReport.byTarget(all);
        if (settings.workload().publishSubscribe()) {
            PubSubReport.ratioLines(settings.workload().id(), byTarget).forEach(line -> progress.accept("ratio " + line));
            return;
        }
        if (peer == Target.RELAY) {
            relayRatios(settings.workload().id(), byTarget).forEach(line -> progress.accept("ratio " + line));
            return;
        }
        for (int size : settings.sizes()) {
            StepResult w = MarkdownReport.peak(byTarget.getOrDefault(Target.WHARF.displayName(), List.of()).stream().filter(s -> s.messageSize() == size).toList());
            StepResult a = MarkdownReport.peak(byTarget.getOrDefault(peer.displayName(), List.of()).stream().filter(s -> s.messageSize() == size).toList());
            if (w != null && a != null && w.medianRate() > 0 && peer == Target.REPLICATED) {
                // the replicated queue manager is measured against one instance: its share of one instance's rate
                progress.accept(String.format(java.util.Locale.ROOT, "ratio %s %s %s/Wharf = %.2f (%s vs %s %s)",
                        settings.workload().id(), Sizes.label(size), peer.displayName(), a.medianRate() / w.medianRate(),
                        Sizes.rate(a.medianRate()), Sizes.rate(w.medianRate()), settings.workload().unit()));
            } else if (w != null && a != null && a.medianRate() > 0) {
                progress.accept(String.format(java.util.Locale.ROOT, "ratio %s %s Wharf/%s = %.2f (%s vs %s %s)",
                        settings.workload().id(), Sizes.label(size), peer.displayName(), w.medianRate() / a.medianRate(),
                        Sizes.rate(w.medianRate()), Sizes.rate(a.medianRate()), settings.workload().unit()));
            } else {
                progress.accept("ratio " + settings.workload().id() + " " + Sizes.label(size) + ": not available (a side has no result)");
            }
        }
    }

    /**
     * Against the relay the round trip is what is compared (the team's target: Wharf's median within 1.5x the
     * relay's), step by step at the same requester count, since a median round trip depends on the count.
     */
    static List<String> relayRatios(String workload, Map<String, List<StepResult>> byTarget) {
        List<String> lines = new java.util.ArrayList<>();
        for (StepResult w : byTarget.getOrDefault(Target.WHARF.displayName(), List.of())) {
            StepResult r = byTarget.getOrDefault(Target.RELAY.displayName(), List.of()).stream()
                    .filter(s -> s.messageSize() == w.messageSize() && s.clients() == w.clients()).findFirst().orElse(null);
            String step = workload + " " + Sizes.label(w.messageSize()) + " requesters=" + w.clients();
            if (r == null || w.unavailable() != null || r.unavailable() != null || r.latencyMicros().count() == 0
                    || w.latencyMicros().count() == 0) {
                lines.add(step + ": not available (a side has no result)");
                continue;
            }
            lines.add(String.format(java.util.Locale.ROOT,
                    "%s: median round trip Wharf/%s = %.2f (%s vs %s; p99 %s vs %s; %s vs %s rt/s)", step,
                    Target.RELAY.displayName(), (double) w.latencyMicros().p50() / Math.max(1, r.latencyMicros().p50()),
                    Sizes.micros(w.latencyMicros().p50()), Sizes.micros(r.latencyMicros().p50()),
                    Sizes.micros(w.latencyMicros().p99()), Sizes.micros(r.latencyMicros().p99()),
                    Sizes.rate(w.medianRate()), Sizes.rate(r.medianRate())));
        }
        return lines;
    }

    /** Writes report.md, results.json and the charts into the settings' output directory. */
    public static void writeReport(RunSettings settings, List<StepResult> all, String command) throws Exception {
        Path out = Files.createDirectories(settings.output());
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.resolve("results.json").toFile(), all);
        Map<String, List<StepResult>> byTarget = MarkdownReport.byTarget(all);
        Map<Integer, String> charts = new LinkedHashMap<>();
        for (int size : settings.sizes()) {
            Map<String, List<StepResult>> series = new LinkedHashMap<>();
            byTarget.forEach((t, steps) -> {
                if (!isPlainLoop(t) && !isJmsApplicationLoop(t)) { // one point, far above: it would flatten the others
                    series.put(t, steps.stream().filter(s -> s.messageSize() == size).toList());
                }
            });
            String file = "chart-" + settings.workload().id() + "-" + Sizes.label(size) + ".svg";
            // the flow workloads step instances, except F-PUB, which steps subscribers as PS-N does
            boolean flow = settings.workload().flow() != null && !settings.workload().publishSubscribe();
            Files.writeString(out.resolve(file), SvgChart.render(settings.workload().id() + " " + Sizes.label(size) + ": "
                    + settings.workload().unit() + " and p99 latency", settings.workload().unit(), series,
                    flow ? StepResult::responders : StepResult::clients, flow ? "flow instances" : "clients (requesters)"));
            charts.put(size, file);
        }
        Files.writeString(out.resolve("report.md"), settings.workload() == Workload.RR_RATED
                ? RatedReport.render(settings.workload().description(), settings.rate(), command, byTarget, charts)
                : settings.workload().publishSubscribe()
                ? PubSubReport.render(settings.workload().id(), settings.workload().description(), settings.persistent(), command, byTarget, charts)
                : MarkdownReport.render(settings.workload().id(), settings.workload().description(),
                settings.workload().unit(), settings.persistent(), command, byTarget, charts));
    }

    /** The parsed command line. */
    /** @param database the F-DB-* workloads' database ({@link RunDatabase#KINDS}) */
    record Parsed(RunSettings settings, List<Target> targets, boolean verbose, String database) {
    }

    /** Parses the runner's options (exposed for the option-parsing tests). */
    static Parsed parse(String[] args, boolean compare) {
        Workload workload = Workload.parse(args[0]);
        List<Integer> sizes = List.of(workload.flow() != null ? 4096 : 2048);
        List<Integer> clients = workload == Workload.PS_T ? List.of(0, 1000, 10000)
                : workload == Workload.RR_RATED ? RatedSteps.DEFAULT_STEPS
                : workload.publishSubscribe() ? List.of(1, 10, 100)
                : workload.flow() != null ? List.of(DEFAULT_FLOW_REQUESTERS) : List.of(1, 2, 4, 8, 16, 32, 64);
        List<Integer> instances = List.of(1);
        int responders = 0;
        int queues = 4;
        int channels = 1;
        double rate = workload == Workload.OW_1 || workload == Workload.OW_5 ? 1000 : workload == Workload.RR_RATED ? RatedSteps.DEFAULT_RATE : 0;
        int runLength = 20;
        int warmup = DEFAULT_WARMUP_SECONDS;
        int timeout = 0; // scaled to the message size (RunSettings.timeoutSeconds(int))
        boolean persistent = false;
        boolean perThread = false;
        boolean inProcess = false;
        boolean verbose = false;
        String url = null;
        String tls = null;
        String security = null;
        String metrics = null;
        Target peer = Target.ARTEMIS;
        boolean peerGiven = false;
        Path output = null;
        List<String> jvmOptions = List.of("-Xmx1g");
        String database = RunDatabase.DEFAULT;
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--persistent" -> persistent = true;
                case "--in-process" -> inProcess = true;
                case "--verbose" -> verbose = true;
                default -> {
                    if (i + 1 >= args.length) {
                        throw new OptionException(a + " needs a value (see --help)");
                    }
                    String v = args[++i];
                    switch (a) {
                        case "--sizes" -> sizes = Arrays.stream(v.split(",")).map(s -> PerfOptions.parseSize(s, "--sizes")).toList();
                        case "--requesters", "--clients" -> clients = Arrays.stream(v.split(",")).map(s -> positive(a, s)).toList();
                        case "--instances" -> {
                            if (workload.flow() == null) {
                                throw new OptionException("--instances steps a message flow's instances: only F-* workloads run a flow");
                            }
                            instances = Arrays.stream(v.split(",")).map(s -> positive(a, s)).toList();
                        }
                        case "--responders" -> responders = nonNegative(a, v);
                        case "--subscribers" -> {
                            if (workload == Workload.PS_T) {
                                responders = positive(a, v);
                            } else {
                                clients = Arrays.stream(v.split(",")).map(x -> positive(a, x)).toList();
                            }
                        }
                        case "--dummies" -> {
                            if (workload != Workload.PS_T) {
                                throw new OptionException("--dummies is a PS-T option (dummy subscriptions beside the real ones)");
                            }
                            clients = Arrays.stream(v.split(",")).map(x -> nonNegative(a, x)).toList();
                        }
                        case "--queues" -> queues = positive(a, v);
                        case "--channels" -> {
                            if (!workload.twoQueueManagers()) {
                                throw new OptionException("--channels joins two queue managers: only RR-5, RR-5b and OW-5 run two");
                            }
                            channels = positive(a, v);
                            if (channels > QueueManagerPair.MAX_CHANNELS) {
                                throw new OptionException("--channels " + v + ": at most " + QueueManagerPair.MAX_CHANNELS
                                        + " (the seed's RR-5 uses 10)");
                            }
                        }
                        case "--rate" -> rate = rate(v);
                        case "--run-length" -> runLength = positive(a, v);
                        case "--warmup" -> warmup = nonNegative(a, v);
                        case "--timeout" -> timeout = positive(a, v);
                        case "--url" -> url = v;
                        case "--tls" -> tls = tlsEngine(v);
                        case "--security" -> security = switch (v) {
                            case "rules" -> v;
                            default -> throw new OptionException("--security " + v + ": the one setting is rules (users and permission rules)");
                        };
                        case "--metrics" -> metrics = switch (v) {
                            case "on", "scrape" -> v;
                            default -> throw new OptionException("--metrics " + v + ": on (the metrics run, nobody"
                                    + " scrapes them) or scrape (/metrics scraped every second)");
                        };
                        case "--correlation" -> perThread = switch (v) {
                            case "message" -> false;
                            case "thread" -> true;
                            default -> throw new OptionException("--correlation " + v + ": use message or thread");
                        };
                        case "--peer" -> {
                            peer = Target.parse(v);
                            peerGiven = true;
                        }
                        case "--database" -> {
                            if (workload.flow() == null || workload.flow().database() == null) {
                                throw new OptionException("--database chooses the database of the F-DB-* workloads: "
                                        + workload.id() + " uses none");
                            }
                            if (!RunDatabase.KINDS.contains(v)) {
                                throw new OptionException("--database " + v + ": use h2 (an embedded H2, the default) or "
                                        + "postgres (a PostgreSQL server started for the run), or h2-xa or postgres-xa (the "
                                        + "same, the flow's data source xa: true)");
                            }
                            database = v;
                        }
                        case "--out" -> output = Path.of(v);
                        case "--jvm-opts" -> jvmOptions = Arrays.stream(v.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
                        default -> throw new OptionException("Unknown option " + a + " (see --help)");
                    }
                }
            }
        }
        if (output == null) {
            output = Path.of("perf-results", workload.id() + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        }
        if (url != null && workload.twoQueueManagers()) {
            throw new OptionException(workload.id() + " starts its two queue managers itself, with the channels between "
                    + "them: --url cannot be used with it");
        }
        if (compare && url != null) {
            throw new OptionException("compare starts both servers itself: --url cannot be used with it");
        }
        if (workload.twoQueueManagers() && workload != Workload.OW_5 && channels > queues) {
            throw new OptionException("--channels " + channels + " with --queues " + queues + ": each channel carries the "
                    + "requests of its own queues, so give at least as many queues as channels");
        }
        List<Target> targets = compare ? List.of(Target.WHARF, peer) : List.of(peerGiven ? peer : Target.WHARF);
        if (compare || peerGiven) { // refused now, not after every step on Wharf (compare RR-1 ran Wharf's first)
            try {
                peer.checkRuns(workload, persistent || workload.alwaysPersistent(), tls, security, metrics);
            } catch (UnsupportedOperationException e) {
                throw new OptionException((compare ? "compare " : "run ") + workload.id() + " --peer "
                        + peer.name().toLowerCase(java.util.Locale.ROOT) + ": " + e.getMessage()
                        + (compare ? " ('wharf perf run " + workload.id() + "' runs it on Wharf alone)" : ""));
            }
        }
        RunSettings settings = new RunSettings(workload, sizes, clients, instances, responders, queues, channels, rate, runLength, warmup,
                timeout, persistent || workload.alwaysPersistent(), perThread, tls, security, metrics, url, output, jvmOptions, inProcess);
        return new Parsed(settings, targets, verbose, database);
    }

    /** {@code --tls}'s value: the server's TLS engine, {@code jdk} or {@code openssl} (or {@code auto}); else refused. */
    static String tlsEngine(String v) {
        return switch (v) {
            case "jdk", "openssl", "auto" -> v;
            default -> throw new OptionException("--tls " + v + ": the server's TLS engine is jdk or openssl (or auto)");
        };
    }

    /** {@code --rate}'s value: operations per second per client, 0 or more, else a refusal naming it. */
    private static double rate(String v) {
        double rate;
        try {
            rate = Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new OptionException("--rate " + v + ": not a number (operations per second per client, e.g. 1.5)");
        }
        if (!(rate >= 0) || Double.isInfinite(rate)) {
            throw new OptionException("--rate " + v + ": must be 0 (as fast as it goes) or a positive rate");
        }
        return rate;
    }

    /** {@code v} as a whole number of at least 1, else a refusal naming {@code option}. */
    static int positive(String option, String v) {
        int n = nonNegative(option, v);
        if (n == 0) {
            throw new OptionException(option + " " + v + ": must be at least 1");
        }
        return n;
    }

    private static int nonNegative(String option, String v) {
        try {
            int n = Integer.parseInt(v.trim());
            if (n < 0) {
                throw new OptionException(option + " " + v + ": must not be negative");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new OptionException(option + " " + v + ": not a whole number");
        }
    }
}
