package org.wharfmq.perf.workload;

import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestCertificates;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code wharf perf replicated}: Wharf as a replicated queue manager for the workload runner ({@code --peer
 * replicated}): three members, each a real {@code wharf server --config FILE --replica ID} process (a child JVM on
 * this JVM's classpath) with its own data directory, replication port and member certificate from a CA made for the
 * step ({@link TestCertificates}, in this JVM: keytool took a minute on a loaded machine), all on 127.0.0.1 and so on
 * this machine's one disk, with the default maxMessageLength (100 MiB: a record larger than a log entry goes in
 * pieces, docs/resilience.md "Large messages"), so that the large rows run on it as on one instance. Once one of them is elected and prints its ready line, prints {@code wharf-perf: server
 * ready tcp=URLS pid=PID} with the members' client URLs, the active member's first, as the JMS client's address list
 * (so the clients follow a failover during a step, as an application would) and the active member's process id (the
 * CPU figure is the active member's),
 * and stops the three (SIGTERM, as a service manager would) when standard input closes. A measurement of the replication's cost beside one instance, not a way to run members.
 */
public final class ReplicatedServerMain {

    private static final String[] IDS = {"a", "b", "c"};
    /** How long the members' certificates are valid: longer than a step runs. */
    private static final Duration CERTIFICATE_VALIDITY = Duration.ofDays(2);
    /** The queue manager's ready line ({@code wharf server}): its network URLs follow "ready on". */
    private static final Pattern READY = Pattern.compile("ready on (tcp://[^, ]+)");
    private static final long START_SECONDS = 290;

    private final PrintStream out;
    private final List<Process> members = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    /** The members' client URLs, in {@link #IDS}' order. */
    private final List<String> clientUrls = new ArrayList<>();

    private ReplicatedServerMain(PrintStream out) {
        this.out = out;
    }

    /** The {@code wharf perf replicated} command: runs until standard input closes. */
    public static int run(String[] args) throws Exception {
        if (args.length > 0) {
            throw new org.wharfmq.perf.options.OptionException("replicated: no options (given " + String.join(" ", args)
                    + ")");
        }
        ReplicatedServerMain main = new ReplicatedServerMain(System.out);
        Thread watcher = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // only the end of the stream matters
                }
            } catch (IOException e) {
                // a broken stdin stops the members like a closed one
            }
            main.stopSignal.countDown();
        }, "perf-replicated-stdin");
        watcher.setDaemon(true);
        watcher.start();
        return main.serve();
    }

    private int serve() throws Exception {
        Path dir = Files.createTempDirectory("wharf-perf-replicated");
        // stopped by a signal rather than by its input closing: the members go too
        Thread stopMembers = new Thread(() -> members.forEach(Process::destroy), "perf-replicated-stop");
        Runtime.getRuntime().addShutdownHook(stopMembers);
        try {
            List<Path> configs = configure(dir);
            CompletableFuture<String> ready = new CompletableFuture<>();
            for (int i = 0; i < IDS.length; i++) {
                members.add(launch(IDS[i], configs.get(i), ready));
            }
            String line = withTheOthers(ready.get(START_SECONDS, TimeUnit.SECONDS));
            out.println(ServerMain.READY_PREFIX + " " + line);
            out.flush();
            stopSignal.await();
            return 0;
        } finally {
            for (Process p : members) {
                p.destroy();
            }
            for (Process p : members) {
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
            TempFiles.deleteTree(dir);
            try {
                Runtime.getRuntime().removeShutdownHook(stopMembers);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs (or ran): nothing left to stop
            }
        }
    }

    /** A member's process; {@code ready} completes with the runner's fields once any member is active. */
    private Process launch(String id, Path config, CompletableFuture<String> ready) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JvmFlags.forChildren());
        command.addAll(heapAndGcOptions());
        command.add("-cp");
        command.add(ChildJvmLauncher.currentClasspath());
        command.add("org.wharfmq.server.cli.WharfCommand");
        command.addAll(List.of("server", "--config", config.toString(), "--replica", id));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    Matcher m = READY.matcher(line);
                    if (m.find()) {
                        ready.complete("tcp=" + m.group(1) + " pid=" + process.pid() + " member=" + id);
                    }
                    synchronized (out) {
                        out.println("[member " + id + "] " + line);
                        out.flush();
                    }
                }
            } catch (IOException e) {
                // the member ended
            }
            ready.completeExceptionally(new IllegalStateException("replication member " + id + " ended before any "
                    + "member was ready (status " + exitValue(process) + ")"));
        }, "perf-member-" + id);
        reader.setDaemon(true);
        reader.start();
        return process;
    }

    private static String exitValue(Process p) {
        try {
            return p.waitFor(5, TimeUnit.SECONDS) ? Integer.toString(p.exitValue()) : "still running";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /** The members get this JVM's heap, collector and system property options (the runner's {@code --jvm-opts}). */
    private static List<String> heapAndGcOptions() {
        List<String> options = new ArrayList<>();
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("-Xm") || arg.startsWith("-XX:") || arg.startsWith("-D")) {
                options.add(arg);
            }
        }
        return options;
    }

    /** The ready line's {@code tcp=} the active member's URL, then the other members'. */
    private String withTheOthers(String line) {
        Matcher m = Pattern.compile("tcp=(\\S+)").matcher(line);
        if (!m.find()) {
            return line;
        }
        StringBuilder urls = new StringBuilder(m.group(1));
        for (String url : clientUrls) {
            if (!url.equals(m.group(1))) {
                urls.append(',').append(url);
            }
        }
        return line.substring(0, m.start(1)) + urls + line.substring(m.end(1));
    }

    /** Certificates and one configuration file per member: the same replication block, its own key store. */
    private List<Path> configure(Path dir) throws Exception {
        TestCertificates.Issued ca = TestCertificates.ca("wharf-perf-replication-ca");
        Path trust = TestCertificates.trustStore(dir.resolve("trust.p12"), ca.certificate());
        int[] ports = FreePorts.take(2 * IDS.length);
        StringBuilder block = new StringBuilder("replication:\n  group: PERF\n  members:\n");
        for (int i = 0; i < IDS.length; i++) {
            block.append("    - id: ").append(IDS[i]).append('\n')
                    .append("      address: 127.0.0.1:").append(ports[i]).append('\n')
                    .append("      dataDirectory: ").append(dir.resolve(IDS[i])).append('\n');
        }
        List<Path> configs = new ArrayList<>();
        for (int i = 0; i < IDS.length; i++) {
            clientUrls.add("tcp://127.0.0.1:" + ports[IDS.length + i]);
            Path keyStore = TestCertificates.issue(ca, "CN=" + IDS[i] + ",O=Wharf perf", CERTIFICATE_VALIDITY,
                    "127.0.0.1", "localhost").pkcs12(dir.resolve(IDS[i] + ".p12"));
            configs.add(Files.writeString(dir.resolve(IDS[i] + ".yaml"), "name: PERF\n"
                    + "host: 127.0.0.1\n"
                    + "port: " + ports[IDS.length + i] + "\n"
                    + ServerMain.limitsYaml()
                    + block
                    + "  tls:\n"
                    + "    keyStore: " + keyStore + "\n"
                    + "    keyStorePassword: " + TestCertificates.PASSWORD + "\n"
                    + "    trustStore: " + trust + "\n"
                    + "    trustStorePassword: " + TestCertificates.PASSWORD + "\n"));
        }
        return configs;
    }
}
