package org.wharfmq.perf.workload;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.wharfmq.perf.driver.Driver;
import org.wharfmq.perf.driver.DriverResult;
import org.wharfmq.perf.driver.LatencyHistograms;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs a workload step by step: for each message size and client count it starts a fresh server (unless told to
 * use a running one), the background drivers (responders, consumers), then the measured drivers (requesters,
 * producers); waits for them, stops everything, and turns the drivers' JSON results and the server's CPU time
 * into a {@link StepResult}.
 */
public final class WorkloadRunner {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    /** Clients of a step per {@link #START_TIMEOUT} the runner gives its client JVMs to connect ({@link #connectTimeout}). */
    private static final int CLIENTS_PER_START_TIMEOUT = 500;
    /**
     * The replicated queue manager's start: three JVMs, an election and a takeover, which took two minutes on the
     * shared machine at load 40.
     */
    private static final Duration REPLICATED_START_TIMEOUT = Duration.ofSeconds(300);
    /**
     * A server's exit after its step: it deletes its data directory first, which for F-FILE holds every file its
     * node archived (56,000 after a 100 s run took more than a minute to delete at load 37).
     */
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(300);

    private final RunSettings settings;
    private final Launcher launcher;
    private final Consumer<String> progress;
    /** RR-RATED: the machine's limits as each step is about to start. */
    private final Supplier<RatedLimits> limits;

    /** A runner for {@code settings}, starting processes with {@code launcher}, telling {@code progress} how it goes. */
    public WorkloadRunner(RunSettings settings, Launcher launcher, Consumer<String> progress) {
        this(settings, launcher, progress, RatedLimits::ofThisMachine);
    }

    /** The same, RR-RATED's steps checked against the limits {@code limits} gives (this machine's, or a test's). */
    WorkloadRunner(RunSettings settings, Launcher launcher, Consumer<String> progress, Supplier<RatedLimits> limits) {
        this.settings = settings;
        this.launcher = launcher;
        this.progress = progress;
        this.limits = limits;
    }

    /**
     * Every step on {@code target}. RR-RATED's stepping stops after the step that did not serve its clients
     * ({@link RatedSteps#notServed}: a median response past the threshold, over all its requesters or a requester
     * JVM's, an overload, a failed check), and before a step past a limit of the machine ({@link RatedLimits}), which is
     * reported as not run, with the limit.
     */
    public List<StepResult> run(Target target) throws Exception {
        List<StepResult> results = new ArrayList<>();
        boolean rated = settings.workload() == Workload.RR_RATED;
        if (rated) {
            progress.accept(String.format("%s %s: %s", settings.workload().id(), target.displayName(),
                    limits.get().describe(settings.jvmOptions())));
        }
        for (int size : settings.sizes()) {
            for (int instances : settings.workload().flow() == null ? List.of(1) : settings.instances()) {
                for (int clients : settings.clients()) {
                    int responders = RatedSteps.responders(settings.responders(), clients); // RR-RATED's
                    String past = rated ? limits.get().past(clients, responders, settings.jvmOptions()) : null;
                    if (past != null) {
                        results.add(unavailable(target, size, clients, responders, past));
                        progress.accept(String.format("%s %s %s clients=%d: not run, %s: no more steps", settings.workload().id(),
                                target.displayName(), Sizes.label(size), clients, past));
                        break;
                    }
                    StepResult r = step(target, size, clients, instances);
                    results.add(r);
                    progress.accept(describe(r));
                    if (r.unavailable() != null) {
                        return results;   // the next steps would say the same
                    }
                    if (settings.workload() == Workload.RR_RATED && RatedSteps.lastStep(r)) {
                        progress.accept(String.format("%s %s %s: median response %s (threshold %d s; per requester JVM %s), "
                                        + "%s: no more steps", r.workload(), r.target(), Sizes.label(size),
                                Sizes.micros(r.latencyMicros().p50()), RatedSteps.THRESHOLD_SECONDS, RatedSteps.jvmMedians(r),
                                RatedSteps.notServed(r)));
                        break;
                    }
                }
            }
        }
        return results;
    }

    /**
     * RR-RATED: the peak resident sets of the server and of the requester JVMs (as last sampled, within
     * a sampling period of the end), beside which the machine's memory limit ({@link RatedLimits}) is set.
     */
    private static String residentSets(CpuSampler cpu, List<Long> serverPids, List<Launched> requesterJvms) {
        long server = serverPids.stream().mapToLong(cpu::peakResidentBytes).filter(b -> b > 0).sum();
        long[] requesters = requesterJvms.stream().mapToLong(l -> cpu.peakResidentBytes(l.pid())).filter(b -> b > 0).toArray();
        return String.format(java.util.Locale.ROOT, "peak resident sets: the server %s; the %d requester JVMs %s at most each,"
                        + " %s together", mb(server), requesters.length, mb(java.util.Arrays.stream(requesters).max().orElse(0)),
                mb(java.util.Arrays.stream(requesters).sum()));
    }

    private static String mb(long bytes) {
        return String.format(java.util.Locale.ROOT, "%,d MB", bytes / (1024 * 1024));
    }

    /** The one-line progress report of a step. */
    static String describe(StepResult r) {
        if (r.unavailable() != null) {
            return String.format("%s %s %s: unavailable (%s)", r.workload(), r.target(), Sizes.label(r.messageSize()), r.unavailable());
        }
        Workload w = Workload.parse(r.workload());
        String unit = w == Workload.OW_1 || w == Workload.OW_5 ? "msg/s" : w == Workload.CONNECT ? "connections/s" : w.publishSubscribe() ? "deliveries/s"
                : w.flow() != null ? "invocations/s" : "rt/s";
        String instances = w.flow() != null ? " instances=" + r.responders() : "";
        String line = String.format("%s %s %s clients=%d%s: median %,.0f %s, server CPU %s, %s us CPU per op (all JVMs %s us),"
                        + " p50 %s p99 %s [check %s]",
                r.workload(), r.target(), Sizes.label(r.messageSize()), r.clients(), instances, r.medianRate(),
                unit, Sizes.percent(r.cpuPercent()), Sizes.decimal(r.cpuMicrosPerOp()), Sizes.decimal(r.allCpuMicrosPerOp()),
                Sizes.micros(r.latencyMicros().p50()), Sizes.micros(r.latencyMicros().p99()), r.passed() ? "PASSED" : "FAILED");
        if (w == Workload.RR_RATED) {
            // the response time from each request's due time, over all requesters and per requester JVM: the spread
            line += String.format("%n  achieved %s rt/s (mean); response time p50 %s p95 %s, p50 per requester JVM %s; %s",
                    Sizes.rate(r.meanRate()), Sizes.micros(r.latencyMicros().p50()), Sizes.micros(r.latencyMicros().p95()),
                    RatedSteps.jvmMedians(r), RatedSteps.served(r) ? "served" : "not served (" + RatedSteps.notServed(r) + ")");
        }
        if (w.publishSubscribe()) {
            line += "\n  delivery latency p50 / p90 / p99 / max: " + Sizes.latency(r.latencyMicros());
        }
        if (r.stillWarmingUp()) {
            line += String.format("%n  warning: the JVMs' JIT compilers used %s of the machine during the measured period, so they were"
                    + " still warming up and the rate is low; run again with a longer --warmup", Sizes.percent(r.jitPercent()));
        }
        return line;
    }

    /** @param instances F-*: the flow's instances, reported as the step's responders */
    private StepResult step(Target target, int size, int clients, int instances) throws Exception {
        Workload w = settings.workload();
        int responders = settings.responders() > 0 ? settings.responders() : Math.max(1, clients / 2);
        if (w.flow() != null) {
            responders = instances;
        }
        if (w == Workload.RR_4B || w == Workload.RR_2B || w == Workload.RR_5 || w == Workload.RR_5B) {
            responders = Math.max(responders, settings.queues());
        }
        if (w == Workload.OW_1 || w == Workload.OW_5) {
            responders = clients;
        }
        if (w == Workload.RR_RATED) {
            responders = RatedSteps.responders(settings.responders(), clients);
        }
        if (w == Workload.CONNECT) {
            responders = 0;
        }
        PubSubPlan ps = w.publishSubscribe() ? new PubSubPlan(w, clients, settings.responders()) : null;
        if (ps != null && w.flow() == null) {
            responders = ps.reportedResponders();
        }
        progress.accept(String.format("%s %s %s clients=%d %s=%d: %d s warm-up + %d s measured...", w.id(),
                target.displayName(), Sizes.label(size), clients, w.flow() == null ? "responders" : "instances", responders,
                settings.warmupSeconds(), settings.runSeconds()));
        Path dir = Files.createDirectories(settings.output().resolve("steps"));
        String stepName = target.name().toLowerCase() + "-" + size + "-" + clients;
        Path messageFile = null;
        if (w.flow() != null) {
            messageFile = dir.resolve(w.id() + "-" + Sizes.label(size) + ".msg");
            Files.write(messageFile, w.flow().message(size));
        }
        DriverPlan plan = new DriverPlan(w, settings, size, clients, responders, dir, stepName, messageFile, target);

        List<Launched> started = new ArrayList<>();
        try {
            target.checkRuns(w, settings.persistent(), settings.tls(), settings.security(), settings.metrics());
            List<Launched> servers = new ArrayList<>();
            List<Long> serverPids = new ArrayList<>(); // whose CPU is the server's
            String tcpUrl = settings.url();
            String backgroundUrl = null;
            String user = null;
            String password = null;
            int probed = 0;             // OW-5 on Wharf: the probes that crossed the channels before the step (ChannelProbe)
            String flowInput = null;    // F-HTTP: the URL the requesters send to; F-FILE: the folder the feeders write to
            Launched otherProvider = null;
            String otherProviderUrl = null;
            if (tcpUrl == null && target == Target.WHARF && w.flow() != null && w.flow().usesOtherProvider()) {
                // F-JMS: the other JMS provider, a second Wharf server the flow's nodes and the requesters use
                if (settings.tls() != null || settings.security() != null) {
                    throw new UnsupportedOperationException(w.id() + " runs its other provider without TLS or users: "
                            + "leave out --tls and --security");
                }
                otherProvider = launcher.launch(target.name().toLowerCase() + "-provider", List.of("server", "--port", "0",
                        "--in-vm", "wharf-perf-provider-" + ProcessHandle.current().pid()));
                started.add(otherProvider);
                otherProviderUrl = field(awaitStarted(otherProvider, START_TIMEOUT), "tcp");
            }
            if (tcpUrl == null && w.twoQueueManagers()) {
                QueueManagerPair pair = QueueManagerPair.write(dir, stepName, plan.forwardQueues(), plan.replyQueues(),
                        settings.channels(), settings.tls() == null ? null : SelfSignedTls.create(), settings.tls());
                List<List<String>> commands = target.pairCommands(w, pair, settings.persistent(), settings.metrics());
                for (int i = 0; i < 2; i++) {
                    Launched qm = launcher.launch(target.name().toLowerCase() + "-qm" + (i + 1), commands.get(i));
                    started.add(qm);
                    servers.add(qm);
                    serverPids.add(qm.pid());
                }
                tcpUrl = field(awaitStarted(servers.get(0), START_TIMEOUT), "tcp");
                backgroundUrl = field(awaitStarted(servers.get(1), START_TIMEOUT), "tcp");
                if (target == Target.WHARF) {
                    user = BenchmarkSecurity.USER;
                    password = pair.password();
                }
                if (target == Target.WHARF && w == Workload.OW_5) { // the channels running before the producers start
                    List<String> probes = ChannelProbe.probes(plan.forwardQueues(), settings.channels());
                    ChannelProbe.cross(tcpUrl, backgroundUrl, user, password, probes, START_TIMEOUT);
                    probed = probes.size();
                    progress.accept(String.format("  the channels from %s are running: a probe crossed each of the %d to %s",
                            QueueManagerPair.QM1, probed, QueueManagerPair.QM2));
                }
            } else if (tcpUrl == null) {
                List<String> command = new ArrayList<>(target.serverCommand(plan.hostedDrivers(), settings.persistent(), w.flow(),
                        instances, settings.tls(), settings.security(), settings.metrics()));
                if (otherProviderUrl != null) {
                    command.addAll(List.of("--jms-provider", otherProviderUrl));
                }
                List<String> serverJvm = target.serverJvmOptions(settings.persistent(), size, settings.jvmOptions());
                if (!serverJvm.isEmpty()) {
                    progress.accept("  " + target.displayName() + "'s broker runs with " + String.join(" ", serverJvm)
                            + " for " + Sizes.label(size) + " persistent messages (docs/benchmarks.md, \"Large messages\")");
                }
                Launched single = launcher.launch(target.name().toLowerCase() + "-server", command, serverJvm);
                started.add(single);
                servers.add(single);
                String ready = awaitStarted(single, target == Target.REPLICATED ? REPLICATED_START_TIMEOUT : START_TIMEOUT);
                tcpUrl = field(ready, settings.tls() == null ? "tcp" : "tls");
                // the replicated queue manager's line names its active member's process, whose CPU is measured
                String pid = ready.contains(" pid=") ? field(ready, "pid") : null;
                serverPids.add(pid == null ? single.pid() : Long.parseLong(pid));
                if (w.flow() != null && w.flow().httpPath() != null) {
                    flowInput = field(ready, ServerMain.HTTP_FIELD) + w.flow().httpPath();
                }
                if (ready.contains(" " + ServerMain.FILES_FIELD + "=")) {
                    flowInput = field(ready, ServerMain.FILES_FIELD);
                }
                if (otherProvider != null && !serverPids.contains(otherProvider.pid())) { // its CPU is the flow's too
                    serverPids.add(otherProvider.pid());
                }
                if (settings.security() != null) {
                    user = field(ready, "user");
                    password = field(ready, "password");
                }
            } else if (w.flow() != null) {
                throw new UnsupportedOperationException(w.id() + " deploys its flow into the server the runner starts: it cannot use a running server (--url)");
            } else if (!plan.hostedDrivers().isEmpty()) {
                throw new UnsupportedOperationException(w.id() + " runs its clients inside the server JVM: it cannot use a running server (--url)");
            }
            Launched server = servers.isEmpty() ? null : servers.get(0);
            // F-JMS: the requesters use the other provider, whose queues the flow reads and writes
            List<String> provider = new ArrayList<>(target.providerArgs(otherProviderUrl != null ? otherProviderUrl : tcpUrl,
                    user, password));
            if (flowInput != null) {
                provider.addAll(List.of("-iq", flowInput));
            }
            // RR-5, OW-5: the responders (consumers) on the second queue manager
            List<String> backgroundProvider = backgroundUrl == null ? provider : target.providerArgs(backgroundUrl, user, password);
            // every background JVM started at once (PS-N's four subscriber JVMs, PS-T's): each awaited after, so that
            // their starts overlap instead of following one another; the measured drivers start once all are ready
            List<Launched> background = new ArrayList<>();
            for (DriverPlan.Spec spec : plan.clientBackground()) {
                Launched l = launcher.launch(spec.id(), spec.args(backgroundProvider));
                started.add(l);
                background.add(l);
            }
            for (Launched l : background) {
                awaitReady(l, target, START_TIMEOUT);
            }
            CpuSampler cpu = null;
            try {
                Duration runTimeout = Duration.ofSeconds(settings.warmupSeconds() + settings.runSeconds() + settings.timeoutSeconds(size) + 120L);
                for (DriverPlan.Spec spec : plan.clientMeasured()) {
                    Launched l = launcher.launch(spec.id(), spec.args(provider));
                    started.add(l);
                }
                if (server != null) {
                    // the replicated peer's members are its launcher's children
                    cpu = new CpuSampler(serverPids, ProcCpu.withDescendants(started.stream().map(Launched::pid).toList()));
                }
                List<Launched> measured = started.subList(started.size() - plan.clientMeasured().size(), started.size());
                for (Launched l : measured) { // the run's clock starts once its clients have connected
                    awaitConnected(l, connectTimeout(clients));
                }
                StepResult endedEarly = awaitMeasured(measured, background, runTimeout, target, size, clients, responders, plan);
                if (endedEarly != null) {
                    return endedEarly;
                }
                if (w == Workload.RR_RATED && cpu != null) {
                    progress.accept("  " + residentSets(cpu, serverPids, measured));
                }
                for (String id : plan.hostedMeasuredIds()) {
                    server.awaitLine(ServerMain.DRIVER_DONE_PREFIX + " id=" + id, runTimeout);
                }
                for (Launched l : background) {
                    l.stop();
                }
                for (Launched l : background) {
                    l.awaitExit(Duration.ofSeconds(settings.timeoutSeconds(size) + 60L));
                }
                String flowCounts = null;
                for (Launched s : servers) {
                    s.stop();
                }
                if (server != null && w.flow() != null) {
                    flowCounts = server.awaitLine(ServerMain.FLOW_PREFIX, Duration.ofSeconds(120));
                }
                String memory = null;
                if (server != null && target == Target.WHARF && !w.twoQueueManagers()) {
                    memory = server.awaitLine(MemoryWatch.PREFIX, Duration.ofSeconds(120));
                    progress.accept("  server " + MemoryWatch.describe(memory));
                }
                List<String> channelCounts = new ArrayList<>();
                if (w.twoQueueManagers() && target == Target.WHARF) {
                    for (Launched s : servers) {
                        channelCounts.add(s.awaitLine(ServerMain.CHANNELS_PREFIX, Duration.ofSeconds(120)));
                    }
                }
                for (Launched s : servers) {
                    s.awaitExit(EXIT_TIMEOUT);
                }
                if (otherProvider != null) { // after the flow has drained, which needs it
                    otherProvider.stop();
                    otherProvider.awaitExit(EXIT_TIMEOUT);
                }
                return evaluate(target, size, clients, responders, plan, cpu, flowCounts, ps, channelCounts, probed, memory);
            } finally {
                if (cpu != null) {
                    cpu.close();
                }
            }
        } catch (UnsupportedOperationException e) {
            return unavailable(target, size, clients, responders, e.getMessage());
        } catch (TimeoutException e) { // a process hung: this server's step fails, the other servers' steps still run
            return failed(target, size, clients, responders, e.getMessage());
        } finally {
            for (Launched l : started) {
                l.close();
            }
        }
    }

    /**
     * Waits for a server's ready line while it goes on starting: one that printed a line within the last {@code stall}
     * is waited for again, up to {@value #START_STALLS} times {@code stall} in all (on a machine at load 55 an empty
     * journal took 25 to 60 s to open and a flow's server was not ready within a fixed 120 s); one silent for
     * {@code stall}, or that ended, fails the step with its last lines.
     *
     * @return the ready line
     */
    static String awaitStarted(Launched server, Duration stall) throws TimeoutException, InterruptedException {
        String last = null;
        for (int waits = 1; ; waits++) {
            try {
                return server.awaitLine(ServerMain.READY_PREFIX, stall);
            } catch (TimeoutException e) {
                String now = server.latestLine("");
                if (now == null || now.equals(last) || waits >= START_STALLS || server.onExit().isDone()) {
                    throw e;
                }
                last = now;
            }
        }
    }

    /** The most a server's start is waited for, in {@link #START_TIMEOUT}s without a line ({@link #awaitStarted}). */
    static final int START_STALLS = 5;

    /**
     * How long the runner waits for a measured client JVM to connect its clients: {@link #START_TIMEOUT} and as much
     * again per {@value #CLIENTS_PER_START_TIMEOUT} clients of the step (RR-RATED's thousands of connections take
     * minutes on a busy machine). A backstop: the driver gives up by itself when its clients stop connecting.
     */
    static Duration connectTimeout(int clients) {
        return START_TIMEOUT.multipliedBy(1 + clients / CLIENTS_PER_START_TIMEOUT);
    }

    /**
     * Waits for a background driver's ready line (responders, consumers, subscribers). A subscriber holding PS-T's
     * dummy subscriptions is waited for as long as the server goes on confirming them ({@link Driver#DUMMIES_LINE}):
     * ten thousand took a peer minutes under load. When {@code stall} passes with none more confirmed, or the driver
     * ends, the step fails naming the count the server confirmed.
     */
    static void awaitReady(Launched l, Target target, Duration stall) throws TimeoutException, InterruptedException {
        String progress = null;
        while (true) {
            try {
                l.awaitLine(Driver.READY_LINE, stall);
                return;
            } catch (TimeoutException e) {
                String now = l.latestLine(Driver.DUMMIES_LINE);
                if (now == null) {
                    throw e;
                }
                if (now.equals(progress)) {
                    throw new TimeoutException(String.format(java.util.Locale.ROOT, "%s could not be made ready: it "
                                    + "confirmed %,d of the %,d dummy subscriptions, then none more within %d s (%s)",
                            target.displayName(), Long.parseLong(field(now, "confirmed")), Long.parseLong(field(now, "of")),
                            stall.toSeconds(), e.getMessage()));
                }
                progress = now;
            }
        }
    }

    /**
     * Waits for the measured drivers to end. The background drivers run until they are stopped, so one that ends
     * first has failed (ActiveMQ Classic's transacted responders, their commits refused at 100 MB, left the requesters
     * waiting for replies until the runner's timeout): then the step ends at once with that driver's reason, and the
     * other servers' steps go on.
     *
     * @return the failed (or unavailable) step when a background driver ended first, else null
     * @throws TimeoutException when a measured driver is still running after {@code timeout}
     */
    private StepResult awaitMeasured(List<Launched> measured, List<Launched> background, Duration timeout, Target target,
                                     int size, int clients, int responders, DriverPlan plan)
            throws TimeoutException, InterruptedException, IOException {
        CompletableFuture<Void> measuredEnded = CompletableFuture.allOf(measured.stream().map(Launched::onExit)
                .toArray(CompletableFuture[]::new));
        List<CompletableFuture<Integer>> backgroundEnded = background.stream().map(Launched::onExit).toList();
        List<CompletableFuture<?>> either = new ArrayList<>(backgroundEnded);
        either.add(measuredEnded);
        try {
            CompletableFuture.anyOf(either.toArray(CompletableFuture[]::new)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // none ended in time (the measured drivers are asked below which hung), or one ended on an error
        }
        for (int i = 0; i < background.size() && !measuredEnded.isDone(); i++) {
            if (backgroundEnded.get(i).isDone()) {
                return endedEarly(background.get(i), plan.clientBackground().get(i), target, size, clients, responders);
            }
        }
        for (Launched l : measured) {
            try {
                l.awaitExit(Duration.ZERO);
            } catch (TimeoutException e) {
                throw new TimeoutException("the step did not end within " + timeout.toSeconds() + " s (its warm-up, its "
                        + "measured period, one timeout and two minutes): " + e.getMessage());
            }
        }
        return null;
    }

    /** The step a background driver failed by ending during the run: its own result says why, else its last line. */
    private StepResult endedEarly(Launched l, DriverPlan.Spec spec, Target target, int size, int clients, int responders)
            throws IOException {
        String what = spec.id() + " ended during the run, before it was asked to stop";
        if (!Files.exists(spec.json())) {
            return failed(target, size, clients, responders, what + ", with no result (exit status "
                    + l.onExit().getNow(-1) + "); its last line: " + l.latestLine(""));
        }
        DriverResult r = JSON.readValue(spec.json().toFile(), DriverResult.class);
        if (r.unavailable() != null) {
            return unavailable(target, size, clients, responders, r.unavailable());
        }
        List<String> problems = r.problems().isEmpty() ? List.of(what + " and reported no problem")
                : r.problems().stream().map(p -> what + ": " + p).toList();
        return failed(target, size, clients, responders, problems);
    }

    /** Waits for a client JVM's ready line; one that ended without it is left to its result to explain. */
    private static void awaitConnected(Launched l, Duration timeout) throws TimeoutException, InterruptedException {
        try {
            l.awaitLine(Driver.READY_LINE, timeout);
        } catch (TimeoutException notConnected) {
            try {
                l.awaitExit(Duration.ZERO); // ended: its result, or the lack of one, says why
            } catch (TimeoutException stillRunning) {
                throw notConnected;
            }
        }
    }

    /** A step that ended without a measurement: its check failed, with {@code problem} saying why. */
    private StepResult failed(Target target, int size, int clients, int responders, String problem) {
        return failed(target, size, clients, responders, List.of(problem));
    }

    private StepResult failed(Target target, int size, int clients, int responders, List<String> problems) {
        return new StepResult(settings.workload().id(), target.displayName(), size, clients, responders, 0, 0, Double.NaN,
                Double.NaN, Double.NaN, Double.NaN, LatencySummary.NONE, false, null, problems);
    }

    private StepResult unavailable(Target target, int size, int clients, int responders, String why) {
        return new StepResult(settings.workload().id(), target.displayName(), size, clients, responders, 0, 0, Double.NaN,
                Double.NaN, Double.NaN, Double.NaN, LatencySummary.NONE, false, why, List.of());
    }

    /** The value of {@code name=} in a process's line ({@code tcp=...} in the server's ready line). */
    static String field(String line, String name) {
        for (String part : line.split(" ")) {
            if (part.startsWith(name + "=")) {
                return part.substring(name.length() + 1);
            }
        }
        throw new IllegalStateException("no " + name + "= in '" + line + "'");
    }

    /**
     * @param flowCounts F-*: the server's {@link ServerMain#FLOW_PREFIX} line, else null
     * @param ps         PS-*: the publish/subscribe layout, else null
     * @param channelCounts RR-5, RR-5b, OW-5 on Wharf: QM1's and QM2's {@link ServerMain#CHANNELS_PREFIX} lines, else empty
     * @param probed     the probes that crossed QM1's channels before the step ({@link ChannelProbe})
     * @param memory     a Wharf server's {@link MemoryWatch#PREFIX} line, else null
     */
    private StepResult evaluate(Target target, int size, int clients, int responders, DriverPlan plan, CpuSampler cpu,
                                String flowCounts, PubSubPlan ps, List<String> channelCounts, int probed, String memory)
            throws IOException {
        List<DriverResult> measured = new ArrayList<>();
        List<DriverResult> background = new ArrayList<>();
        for (DriverPlan.Spec spec : plan.allSpecs()) {
            Path file = spec.json();
            if (!Files.exists(file)) {
                return failed(target, size, clients, responders,
                        spec.id() + " wrote no result (" + file + "): it failed to start or was killed");
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
            if (r.late() > 0) {
                progress.accept(String.format("  %s: %d replies came later than the %d s timeout (answered, not lost; "
                        + "their round trips are in the latencies if they ended after the warm-up)", r.processId(), r.late(),
                        settings.timeoutSeconds(size)));
            }
        }
        if (unavailable != null) {
            return unavailable(target, size, clients, responders, unavailable);
        }
        problems.addAll(crossCheck(measured, background));
        if (flowCounts != null) {
            problems.addAll(flowCheck(flowCounts, measured));
            if (flowCounts.contains(" " + ServerMain.ALLOCATED + "=")) {
                long invocations = Long.parseLong(field(flowCounts, "invocations"));
                progress.accept(String.format("  server allocation: %,d bytes per invocation (the whole run's, start "
                        + "and warm-up included)", Long.parseLong(field(flowCounts, ServerMain.ALLOCATED)) / Math.max(1, invocations)));
            }
        }
        if (ps != null) {
            problems.addAll(PubSubCheck.subscriberCount(ps.subscribers(), background));
        }
        if (memory != null && settings.workload().requestReply()) {
            problems.addAll(MemoryWatch.check(memory, size));
        }
        if (!channelCounts.isEmpty()) {
            problems.addAll(channelCheck(settings.workload(), channelCounts.get(0), channelCounts.get(1), measured, probed));
        }
        StepRates rates = rates(ps != null || settings.workload() == Workload.OW_5, measured, background);
        double median = rates.median();
        double mean = rates.mean();
        DriverResult main = measured.get(0);
        double cpuPercent = Double.NaN;
        double cpuPerOp = Double.NaN;
        double jitPercent = Double.NaN;
        double allCpuPerOp = Double.NaN;
        if (cpu != null) {
            double[] used = cpu.between(main.windowStartMillis(), main.windowEndMillis());
            if (!Double.isNaN(used[0]) && used[1] > 0) {
                int cores = Runtime.getRuntime().availableProcessors();
                cpuPercent = 100.0 * used[0] / used[1] / cores;
                cpuPerOp = mean > 0 ? used[0] / used[1] / mean * 1e6 : Double.NaN;
                jitPercent = 100.0 * used[2] / used[1] / cores;
                allCpuPerOp = mean > 0 ? used[3] / used[1] / mean * 1e6 : Double.NaN;
                if (mean > 0 && !Double.isNaN(used[4])) {
                    // a server still compiling (a busy machine, a short warm-up) costs more per op for that alone
                    progress.accept(String.format("  server CPU per op %s us: %s us without its JIT compilers, %s us"
                                    + " theirs", Sizes.decimal(cpuPerOp), Sizes.decimal((used[0] - used[4]) / used[1] / mean * 1e6),
                            Sizes.decimal(used[4] / used[1] / mean * 1e6)));
                }
                if (mean > 0 && settings.workload().flow() != null && used[5] > 0) {
                    // the flow's own threads (its nodes' work, its JMS receive and send) apart from the messaging
                    // around them, to set beside a plain loop's thread: the loop runs the node's work on one thread
                    progress.accept(String.format("  of which the flow's threads %s us (its nodes, its JMS receive "
                                    + "and send), the rest of the server %s us", Sizes.decimal(used[5] / used[1] / mean * 1e6),
                            Sizes.decimal((used[0] - used[5]) / used[1] / mean * 1e6)));
                }
            }
        }
        // the measured drivers' histograms added up: RR-RATED's requesters run in several JVMs, each of which is
        // also kept on its own, so that a step is judged by every JVM's requesters
        LatencySummary latency = ps != null ? deliveryLatency(background)
                : LatencyHistograms.summaryOf(measured.stream().map(DriverResult::latencyHistogram).toList());
        return new StepResult(settings.workload().id(), target.displayName(), size, clients, responders, median, mean,
                cpuPercent, cpuPerOp, allCpuPerOp, jitPercent, latency, problems.isEmpty(), null, problems,
                measured.stream().mapToLong(DriverResult::queuedAtEnd).sum(),
                ps != null ? List.of() : measured.stream().map(DriverResult::latencyMicros).toList());
    }

    /**
     * Publish/subscribe: the delivery latency of the publisher's measured publications at every subscriber, the
     * subscriber JVMs' (the background drivers') histograms added up.
     */
    static LatencySummary deliveryLatency(List<DriverResult> subscriberJvms) {
        return LatencyHistograms.summaryOf(subscriberJvms.stream().map(DriverResult::latencyHistogram).toList());
    }

    /**
     * The step's rates: publish/subscribe deliveries (and OW-5's messages, which must cross a channel) as the
     * subscriber (consumer) JVMs, the background drivers, counted them in each second of the publisher's
     * (producers') measured period; the other workloads' operations as their measured drivers counted them.
     */
    static StepRates rates(boolean atReceivers, List<DriverResult> measured, List<DriverResult> background) {
        return atReceivers ? StepRates.atSubscribers(background, measured.get(0)) : StepRates.ofMeasured(measured);
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

    /**
     * The flow's side of exactly-once: it ran once per request the requesters sent (every request answered, late or
     * lost), none failed or was backed out, no input or output was left on a queue, a database workload's
     * Database node wrote once per invocation, and F-FILE-OUT's FileOutput node wrote one record per invocation.
     */
    static List<String> flowCheck(String flowCounts, List<DriverResult> requesters) {
        List<String> problems = new ArrayList<>();
        long requests = requesters.stream().mapToLong(DriverResult::operationsBegun).sum();
        long invocations = Long.parseLong(field(flowCounts, "invocations"));
        if (invocations != requests) {
            problems.add("the flow ran " + invocations + " times for " + requests + " requests");
        }
        if (flowCounts.contains(" " + ServerMain.DATABASE_WORK + "=")) {
            long work = Long.parseLong(field(flowCounts, ServerMain.DATABASE_WORK));
            if (work != invocations) {
                problems.add("the flow's Database node did " + work + " inserts or updates in " + invocations
                        + " invocations");
            }
        }
        if (flowCounts.contains(" " + ServerMain.FILE_WORK + "=")) {
            long records = Long.parseLong(field(flowCounts, ServerMain.FILE_WORK));
            if (records != invocations) {
                problems.add("the flow's FileOutput node wrote " + records + " records in " + invocations + " invocations");
            }
        }
        for (String counter : List.of("failures", "backouts", "input-depth", "output-depth")) {
            long n = Long.parseLong(field(flowCounts, counter));
            if (n != 0) {
                problems.add("flow " + counter + "=" + n + " (expected 0)");
            }
        }
        return problems;
    }

    /**
     * The channels' side of a distributed step: every request (or OW-5 message) the measured drivers sent crossed
     * from QM1 to QM2 on a channel exactly once, and (RR-5, RR-5b) each came back as one reply on a channel from QM2:
     * a step whose clients met on one queue manager, or whose channels doubled or dropped messages, fails.
     *
     * @param qm1    QM1's {@link ServerMain#CHANNELS_PREFIX} line, its senders' counts
     * @param qm2    QM2's
     * @param probed the probes the runner sent across QM1's channels before the step ({@link ChannelProbe})
     */
    static List<String> channelCheck(Workload w, String qm1, String qm2, List<DriverResult> measured, int probed) {
        List<String> problems = new ArrayList<>();
        long sent = measured.stream().mapToLong(DriverResult::operationsBegun).sum();
        long forward = channelTotal(qm1);
        long back = channelTotal(qm2);
        if (forward != sent + probed) {
            problems.add("the channels from " + QueueManagerPair.QM1 + " carried " + forward + " messages for the " + sent
                    + " " + (w.requestReply() ? "requests" : "messages") + " sent" + (probed == 0 ? "" : " and " + probed
                    + " probes") + " (" + qm1 + ")");
        }
        long replies = w.requestReply() ? forward - probed : 0;
        if (back != replies) {
            problems.add("the channels from " + QueueManagerPair.QM2 + " carried " + back + " messages for " + replies
                    + " replies (" + qm2 + ")");
        }
        return problems;
    }

    private static long channelTotal(String line) {
        long total = 0;
        for (String part : line.substring(ServerMain.CHANNELS_PREFIX.length()).trim().split(" ")) {
            if (!part.isEmpty()) {
                total += Long.parseLong(part.substring(part.indexOf('=') + 1));
            }
        }
        return total;
    }

    private static List<DriverResult> concat(List<DriverResult> a, List<DriverResult> b) {
        List<DriverResult> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
