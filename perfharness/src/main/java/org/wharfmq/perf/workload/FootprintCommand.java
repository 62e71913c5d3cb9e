package org.wharfmq.perf.workload;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.wharfmq.perf.driver.Provider;
import org.wharfmq.perf.options.OptionException;
import org.wharfmq.perf.options.PerfOptions;
import org.wharfmq.perf.report.Machine;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code wharf perf footprint [--queues N] [--connections N] [--peer artemis|classic] [--tls jdk|openssl]}: what an
 * idle connection and a defined queue cost a server in memory (seed 004's memory usage: 98 KB per client, 33 KB
 * per queue). Starts the server in a child JVM, warms it up (a few connections, a queue, a message each way),
 * then samples its live heap (the {@code Total} of {@code jcmd PID GC.class_histogram}, which runs a full
 * collection first) and its resident set ({@code VmRSS} of {@code /proc/PID/status}); defines N queues, each
 * holding one 16-byte non-persistent message (so no server drops it as unused), and samples again; opens N idle
 * connections from this process (connected and started, no session) and samples a third time. Prints, and
 * writes to {@code results.json}, the heap and resident growth per queue and per connection.
 *
 * <p>A measurement, not a test: the per-item figures are growth divided by N, so N should be in the thousands
 * for the resident set (it grows by pages, and the heap's own sizing moves it). Needs {@code jcmd} (a JDK).
 */
public final class FootprintCommand {

    /** The line with the per-item results, for scripts and tests. */
    public static final String RESULT_PREFIX = "wharf-perf: footprint";

    private static final String HELP = """
            Usage: wharf perf footprint [options]
              --queues N          queues to define, each holding one 16-byte message   [1000]
              --connections N     idle connections to open (connected, started)         [1000]
              --peer PEER         measure artemis or classic instead of Wharf
              --tls ENGINE        the connections are TLS ones (jdk or openssl; Wharf only)
              --jvm-opts "OPTS"   options of the server's JVM                            [-Xmx1g]
              --out DIR           where results.json goes   [perf-results/footprint-TIMESTAMP]
            """;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final Pattern HISTOGRAM_TOTAL = Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)\\s*$");
    private static final String QUEUE_PREFIX = "FOOTPRINT.Q";
    private static final int WARM_UP_CONNECTIONS = 10;

    /**
     * What was measured: the server's live heap and resident bytes before, after the queues, after the connections.
     */
    public record Result(String target, int queues, int connections, long heapBefore, long heapQueues,
                         long heapConnections, long residentBefore, long residentQueues, long residentConnections) {

        public double heapBytesPerQueue() {
            return (heapQueues - heapBefore) / (double) queues;
        }

        public double residentBytesPerQueue() {
            return (residentQueues - residentBefore) / (double) queues;
        }

        public double heapBytesPerConnection() {
            return (heapConnections - heapQueues) / (double) connections;
        }

        public double residentBytesPerConnection() {
            return (residentConnections - residentQueues) / (double) connections;
        }
    }

    private FootprintCommand() {
    }

    /** The {@code wharf perf footprint} command; returns the exit status. */
    public static int run(String[] args) throws Exception {
        if (PerfOptions.helpAsked(args)) {
            System.out.println(HELP);
            return 0;
        }
        int queues = 1000;
        int connections = 1000;
        Target target = Target.WHARF;
        String tls = null;
        List<String> jvmOptions = List.of("-Xmx1g");
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            if (i + 1 >= args.length) {
                throw new OptionException("footprint: " + args[i] + " needs a value (see --help)");
            }
            String v = args[++i];
            switch (args[i - 1]) {
                case "--queues" -> queues = RunCommand.positive("--queues", v);
                case "--connections" -> connections = RunCommand.positive("--connections", v);
                case "--peer" -> target = Target.parse(v);
                case "--tls" -> tls = RunCommand.tlsEngine(v);
                case "--jvm-opts" -> jvmOptions = Arrays.stream(v.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
                case "--out" -> out = Path.of(v);
                default -> throw new OptionException("footprint: unknown option " + args[i - 1] + " (see --help)");
            }
        }
        if (out == null) {
            out = Path.of("perf-results", "footprint-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        }
        Result r = measure(target, queues, connections, tls, new ChildJvmLauncher(jvmOptions, line -> { }), System.out);
        Files.createDirectories(out);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.resolve("results.json").toFile(), r);
        System.out.println("results: " + out.resolve("results.json"));
        return 0;
    }

    /** Starts {@code target}'s server with {@code launcher}, measures it, prints and returns the result. */
    public static Result measure(Target target, int queues, int connections, String tls, Launcher launcher, PrintStream out)
            throws Exception {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!Files.isExecutable(jcmd)) {
            throw new OptionException("footprint reads the server's heap with jcmd, which is not at " + jcmd
                    + ": run it on a JDK, not a JRE");
        }
        List<String> command;
        try {
            target.checkOptions(tls, null, null);
            command = target.serverCommand(List.of(), false, null, 1, tls, null, null);
        } catch (UnsupportedOperationException e) {
            throw new OptionException("footprint: " + e.getMessage());
        }
        try (Launched server = launcher.launch(target.name().toLowerCase(Locale.ROOT) + "-server", command)) {
            String ready = WorkloadRunner.awaitStarted(server, START_TIMEOUT);
            String url = WorkloadRunner.field(ready, tls == null ? "tcp" : "tls");
            List<String> driverArgs = new ArrayList<>(List.of("-tc", "jms.r11.Sender"));
            driverArgs.addAll(target.providerArgs(url, null, null));
            List<Connection> idle = new ArrayList<>();
            try (Provider provider = Provider.open(PerfOptions.parse(driverArgs.toArray(String[]::new)))) {
                warmUp(provider);
                long pid = server.pid();
                long heap0 = liveHeap(jcmd, pid);
                long rss0 = resident(pid);
                defineQueues(provider, queues);
                long heap1 = liveHeap(jcmd, pid);
                long rss1 = resident(pid);
                for (int i = 0; i < connections; i++) {
                    Connection c = provider.connect();
                    idle.add(c);
                    c.start();
                }
                long heap2 = liveHeap(jcmd, pid);
                long rss2 = resident(pid);
                Result r = new Result(target.displayName(), queues, connections, heap0, heap1, heap2, rss0, rss1, rss2);
                print(r, tls, out);
                return r;
            } finally {
                for (Connection c : idle) {
                    closeQuietly(c);
                }
                server.stop();
                server.awaitExit(Duration.ofSeconds(60));
            }
        }
    }

    private static void print(Result r, String tls, PrintStream out) {
        out.printf(Locale.ROOT, "%s target=%s queues=%d heapBytesPerQueue=%.0f residentBytesPerQueue=%.0f connections=%d"
                        + " heapBytesPerConnection=%.0f residentBytesPerConnection=%.0f tls=%s%n", RESULT_PREFIX, r.target().replace(' ', '-'),
                r.queues(), r.heapBytesPerQueue(), r.residentBytesPerQueue(), r.connections(), r.heapBytesPerConnection(),
                r.residentBytesPerConnection(), tls == null ? "off" : tls);
        out.printf(Locale.ROOT, "%s, %s: live heap %,d KB -> %,d KB (%d queues) -> %,d KB (%d idle connections)%n",
                r.target(), Machine.describe(), r.heapBefore() / 1024, r.heapQueues() / 1024, r.queues(),
                r.heapConnections() / 1024, r.connections());
        out.printf(Locale.ROOT, "  per queue:      %.1f KB heap, %.1f KB resident%n", r.heapBytesPerQueue() / 1024,
                r.residentBytesPerQueue() / 1024);
        out.printf(Locale.ROOT, "  per connection: %.1f KB heap, %.1f KB resident%n", r.heapBytesPerConnection() / 1024,
                r.residentBytesPerConnection() / 1024);
        out.flush();
    }

    /** A few connections, a queue and a message each way, so the first of the measured ones pays no start-up. */
    private static void warmUp(Provider provider) throws JMSException {
        List<Connection> warm = new ArrayList<>();
        try {
            for (int i = 0; i < WARM_UP_CONNECTIONS; i++) {
                Connection c = provider.connect();
                warm.add(c);
                c.start();
            }
            Session s = warm.get(0).createSession(false, Session.AUTO_ACKNOWLEDGE);
            javax.jms.Queue q = provider.queue(s, "FOOTPRINT.WARM");
            s.createProducer(q).send(s.createBytesMessage());
            if (s.createConsumer(q).receive(30_000) == null) {
                throw new IllegalStateException("the warm-up message did not come back within 30 s");
            }
        } finally {
            warm.forEach(FootprintCommand::closeQuietly);
        }
    }

    /** Defines {@code n} queues by sending each a 16-byte message, committed in batches: the commit is the barrier. */
    private static void defineQueues(Provider provider, int n) throws JMSException {
        try (Connection c = provider.connect()) {
            Session s = c.createSession(true, Session.SESSION_TRANSACTED);
            for (int i = 0; i < n; i++) {
                try (MessageProducer p = s.createProducer(provider.queue(s, QUEUE_PREFIX + i))) {
                    p.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
                    javax.jms.BytesMessage m = s.createBytesMessage();
                    m.writeBytes(new byte[16]);
                    p.send(m);
                }
                if (i % 100 == 99) {
                    s.commit();
                }
            }
            s.commit();
        }
    }

    /** The server's live heap in bytes: {@code jcmd PID GC.class_histogram} collects first and totals what is left. */
    static long liveHeap(Path jcmd, long pid) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.class_histogram").redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("jcmd " + pid + " GC.class_histogram failed: " + tail(text));
        }
        return histogramTotal(text);
    }

    /** The bytes of the {@code Total} line of a class histogram. */
    static long histogramTotal(String histogram) {
        Matcher m = HISTOGRAM_TOTAL.matcher(histogram);
        if (!m.find()) {
            throw new IllegalStateException("no Total line in jcmd's class histogram: " + tail(histogram));
        }
        return Long.parseLong(m.group(1));
    }

    /** VmRSS of process {@code pid} in bytes, from /proc; -1 where there is no /proc. */
    static long resident(long pid) throws IOException {
        Path status = Path.of("/proc", Long.toString(pid), "status");
        if (!Files.exists(status)) {
            return -1;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        return -1;
    }

    private static String tail(String text) {
        return text.length() <= 400 ? text : "..." + text.substring(text.length() - 400);
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (JMSException e) {
            // the server stops next anyway
        }
    }
}
