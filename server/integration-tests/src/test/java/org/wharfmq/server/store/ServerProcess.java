package org.wharfmq.server.store;

import org.wharfmq.server.cli.WharfProcess;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Wharf server running as a child process ({@code wharf server --port 0 --data DIR}) on the test class path, with
 * this JVM's --add-opens/--add-exports flags, so a test can kill it with SIGKILL and start it again. Public for
 * jms-client/xa-tests (a transaction manager's recovery after a crash), which has the command line on its class path.
 */
public final class ServerProcess implements AutoCloseable {

    private static final Pattern READY = Pattern.compile("ready on tcp://[^:]+:(\\d+)");
    /** The line a standby logs when it finds the data directory locked and starts waiting (DataDirectoryLock). */
    private static final String WAITING_AS_STANDBY = "waits as its standby";
    /** The line a replicated queue manager's member prints once its clients are disconnected after its fence. */
    private static final String STOPPED = "serves no clients any more";
    /** The line a member prints once it started again as a replica after the fence, its log and listeners open. */
    private static final String REJOINS = "rejoins as a replica and follows";
    /** The line a member prints after its ready line: how long it took over, and how long it has led its log. */
    private static final Pattern TOOK_OVER = Pattern.compile("took over in (\\d+) ms: Raft leader for (-?\\d+) ms");
    /** The line a member prints when its way back from a fence is stuck (MemberRun's StandDown), with its threads. */
    private static final String STUCK = "has not rejoined as a replica within";
    /**
     * Where every server's output is kept as well, one file per process ({@code target/server-output/PID.log}), for
     * a failed test: CI keeps the module's target directory.
     */
    private static final Path OUTPUT_DIRECTORY = Path.of("target", "server-output");

    private final Process process;
    /** The address its clients reach it at: 127.0.0.1, or its address in a network namespace of its own. */
    private final String host;
    private final CompletableFuture<Integer> port = new CompletableFuture<>();
    private final CompletableFuture<Void> waiting = new CompletableFuture<>();
    private final CompletableFuture<String> log = new CompletableFuture<>();
    private final StringBuilder seen = new StringBuilder();
    /** Whether its latest ready line is not followed by a fence: it serves clients (a member: it is active). */
    private volatile boolean serving;
    /** When the test saw its latest ready line ({@link System#nanoTime}). */
    private volatile long readyAt;
    /** A member's latest takeover: how long it had led its Raft log at its ready line, in ms; -1 before one. */
    private volatile long leaderForMillis = -1;
    /** The times a member stopped serving after a fence, and rejoined as a replica; guarded by {@link #seen}. */
    private int stops;
    private int rejoins;
    /** Whether the member said its rejoin is stuck; guarded by {@link #seen}. */
    private boolean stuck;
    /** The file its output is kept in as well, or null when it cannot be written. */
    private final Path outputFile;

    private ServerProcess(Process process, String host) {
        this.process = process;
        this.host = host;
        this.outputFile = OUTPUT_DIRECTORY.resolve(process.pid() + ".log").toAbsolutePath();
    }

    /** Starts the server and waits for its ready line. */
    public static ServerProcess start(Path data, String... extraArgs) throws Exception {
        return start(data, 0, extraArgs);
    }

    /**
     * Starts the server on TCP port {@code port} (0: any free one) and waits for its ready line: a server restarted on
     * the port it had is found again by clients that reconnect.
     */
    public static ServerProcess start(Path data, int port, String... extraArgs) throws Exception {
        ServerProcess server = launch(data, port, List.of(), extraArgs);
        server.awaitReady(60);
        return server;
    }

    /** Starts the server with options for its JVM ({@code -Xmx64m}) and waits for its ready line. */
    public static ServerProcess startWithJvmOptions(Path data, List<String> jvmOptions, String... extraArgs) throws Exception {
        ServerProcess server = launch(data, 0, jvmOptions, extraArgs);
        server.awaitReady(60);
        return server;
    }

    /**
     * Starts a server with {@code --standby} on {@code data}, which another one holds, and waits until it says it is
     * waiting as that one's standby; {@link #awaitReady} then waits for its takeover.
     */
    static ServerProcess startStandby(Path data, String... extraArgs) throws Exception {
        return startStandby(data, 0, extraArgs);
    }

    /** {@link #startStandby(Path, String...)} that will listen on TCP port {@code port} once it has taken over. */
    static ServerProcess startStandby(Path data, int port, String... extraArgs) throws Exception {
        return startStandby(data, port, List.of(), extraArgs);
    }

    /** {@link #startStandby(Path, String...)} with options for its JVM. */
    static ServerProcess startStandbyWithJvmOptions(Path data, List<String> jvmOptions, String... extraArgs)
            throws Exception {
        return startStandby(data, 0, jvmOptions, extraArgs);
    }

    private static ServerProcess startStandby(Path data, int port, List<String> jvmOptions, String... extraArgs)
            throws Exception {
        List<String> args = new ArrayList<>(List.of(extraArgs));
        args.add("--standby");
        ServerProcess server = launch(data, port, jvmOptions, args.toArray(String[]::new));
        try {
            server.waiting.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("the standby ended before it waited:\n" + server.output(), e);
        }
        return server;
    }

    /**
     * Starts a server that will listen on TCP port {@code port} and returns at once: a member of a replicated queue
     * manager, whose ready line comes once it is elected active ({@link #ready}).
     */
    static ServerProcess launch(Path data, int port, String... extraArgs) throws IOException {
        return launch(data, port, List.of(), extraArgs);
    }

    /** Starts a server and returns at once: for a start that is expected to fail ({@link #awaitExit}, {@link #output}). */
    static ServerProcess launch(Path data, String... extraArgs) throws IOException {
        return launch(data, 0, List.of(), extraArgs);
    }

    /** {@link #launch(Path, int, String...)} with options for its JVM. */
    static ServerProcess launch(Path data, int port, List<String> jvmOptions, String... extraArgs)
            throws IOException {
        return launch(List.of(), "127.0.0.1", data, port, jvmOptions, extraArgs);
    }

    /**
     * {@link #launch(Path, int, List, String...)} with the command behind {@code prefix} ({@code ip netns exec NS}: a
     * process of the same id, in a network namespace), its clients reaching it at {@code host}.
     */
    public static ServerProcess launch(List<String> prefix, String host, Path data, int port, List<String> jvmOptions,
            String... extraArgs) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(command(data, port, jvmOptions, extraArgs));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        ServerProcess server = new ServerProcess(process, host);
        server.collect(new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)));
        return server;
    }

    /**
     * Waits up to {@code seconds} for the ready line (a standby's comes when it has taken over) and returns its TCP port.
     *
     * @throws IllegalStateException with everything the server printed when it ended before it was ready
     */
    public int awaitReady(long seconds) throws Exception {
        try {
            return port.get(seconds, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("the server exited before it was ready:\n" + output(), e);
        }
    }

    /**
     * The command line of a server on {@code data}, port 0: this JVM's java, its --add-opens/--add-exports flags and
     * its class path.
     */
    static List<String> command(Path data, String... extraArgs) {
        return command(data, 0, List.of(), extraArgs);
    }

    private static List<String> command(Path data, int port, List<String> jvmOptions, String... extraArgs) {
        List<String> arguments = new ArrayList<>(List.of("server", "--port", String.valueOf(port), "--data",
                data.toString()));
        arguments.addAll(List.of(extraArgs));
        return wharf(jvmOptions, arguments);
    }

    /** The command line of {@code wharf ARGUMENTS} (any command: {@code admin ...}) on this JVM's class path. */
    static List<String> wharf(List<String> jvmOptions, List<String> arguments) {
        List<String> options = new ArrayList<>();
        options.add("-XX:TieredStopAtLevel=1"); // starts faster; these servers live for a second
        options.addAll(jvmOptions);
        return WharfProcess.command(options, arguments);
    }

    /** The port of a server's ready line, or -1 when {@code line} is not it. */
    static int readyPort(String line) {
        Matcher m = READY.matcher(line);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    /**
     * Keeps reading the output (so the child never blocks on a full pipe), keeps it for diagnostics, and notes the
     * ready line and a standby's waiting line.
     */
    private void collect(BufferedReader out) {
        Thread reader = new Thread(() -> {
            java.io.Writer file = openOutputFile();
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    if (file != null) {
                        file.write(line);
                        file.write('\n');
                        file.flush();
                    }
                    int ready = readyPort(line);
                    if (ready >= 0) {
                        leaderForMillis = -1; // its "took over" line follows
                        readyAt = System.nanoTime();
                        port.complete(ready);
                        serving = true;
                    }
                    if (line.contains(STOPPED)) {
                        serving = false;
                    }
                    Matcher tookOver = TOOK_OVER.matcher(line);
                    if (tookOver.find()) {
                        leaderForMillis = Long.parseLong(tookOver.group(2));
                    }
                    synchronized (seen) {
                        seen.append(line).append('\n');
                        stops += line.contains(STOPPED) ? 1 : 0;
                        rejoins += line.contains(REJOINS) ? 1 : 0;
                        stuck |= line.contains(STUCK);
                        seen.notifyAll();
                    }
                    if (line.contains(WAITING_AS_STANDBY)) {
                        waiting.complete(null);
                    }
                }
            } catch (IOException ignored) {
                // the process died: that is what these tests do
            } finally {
                closeQuietly(file);
            }
            String all;
            synchronized (seen) {
                all = seen.toString();
            }
            port.completeExceptionally(new IllegalStateException("ended"));
            waiting.completeExceptionally(new IllegalStateException("ended"));
            log.complete(all);
        }, "server-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** The file this server's output is written to as well, or null when it cannot be (the output is still kept). */
    private java.io.Writer openOutputFile() {
        try {
            java.nio.file.Files.createDirectories(outputFile.getParent());
            return java.nio.file.Files.newBufferedWriter(outputFile, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
    }

    private static void closeQuietly(java.io.Writer file) {
        if (file == null) {
            return;
        }
        try {
            file.close();
        } catch (IOException ignored) {
            // what was written is flushed line by line
        }
    }

    /** Where this server's output is kept (also after the test): named in the failures of the waits below. */
    Path outputFile() {
        return outputFile;
    }

    public String url() {
        return "tcp://" + host + ":" + port.join();
    }

    /**
     * Whether it has printed its ready line and serves clients: a member of a replicated queue manager, each time it
     * is elected, until it is fenced.
     */
    boolean ready() {
        return serving && process.isAlive();
    }

    /** When this test saw the server's latest ready line ({@link System#nanoTime}; a member: its latest takeover). */
    long readyAt() {
        return readyAt;
    }

    /**
     * Waits, at most {@code seconds}, for a ready line seen after {@code since} ({@link System#nanoTime}: a kill) and
     * returns when it was seen, or -1 when none came: a member found active by asking it answers before its ready
     * line, which comes once its plugins have started.
     */
    long awaitReadyAfter(long since, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        synchronized (seen) {
            while (readyAt - since <= 0 && process.isAlive() && System.nanoTime() < deadline) {
                seen.wait(100);
            }
            return readyAt - since > 0 ? readyAt : -1;
        }
    }

    /**
     * How long a member had led its Raft log when it printed its latest ready line, in ms (its "took over" line, which
     * follows the ready line: the ready line's time less this is when it was elected); waits for that line at most
     * {@code seconds}, and answers -1 if it has not come.
     */
    long leaderForMillis(long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        synchronized (seen) {
            while (leaderForMillis < 0 && process.isAlive() && System.nanoTime() < deadline) {
                seen.wait(100);
            }
            return leaderForMillis;
        }
    }

    /** The times this member stopped serving after it stopped being active (its clients disconnected). */
    int stops() {
        synchronized (seen) {
            return stops;
        }
    }

    /** The times this member has rejoined as a replica in its process, after it stopped being active. */
    int rejoins() {
        synchronized (seen) {
            return rejoins;
        }
    }

    /**
     * Waits, at most {@code seconds}, until this member has stopped serving more than {@code before} times: it lost
     * the leadership and its clients are disconnected, so nothing it sends can reach them any more.
     */
    void awaitStopAfter(int before, long seconds) throws InterruptedException {
        awaitMore(() -> stops, before, seconds, "stop serving");
    }

    /**
     * Waits, at most {@code seconds}, until this member has rejoined as a replica more than {@code before} times (its
     * queue manager closed, its log started again as a replica's).
     */
    void awaitRejoinAfter(int before, long seconds) throws InterruptedException {
        awaitMore(() -> rejoins, before, seconds, "rejoin as a replica");
    }

    private void awaitMore(java.util.function.IntSupplier count, int before, long seconds, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        String failure;
        synchronized (seen) {
            while (count.getAsInt() <= before && !stuck && process.isAlive() && System.nanoTime() < deadline) {
                seen.wait(1000);
            }
            if (count.getAsInt() > before) {
                return;
            }
            failure = "the member did not " + what + (stuck ? ": it says it is stuck" : " within " + seconds + " s")
                    + " (" + (process.isAlive() ? "running" : "ended") + "; its output is in " + outputFile + "):\n"
                    + seen;
        }
        // the member's threads as they stand, when it is still running (jcmd: also when the member printed its own)
        throw new AssertionError(failure + (process.isAlive() ? "\n---- its threads (jcmd):\n" + threadDump() : ""));
    }

    /** SIGSTOP: the process stands still, as in a long pause, until {@link #resume}. */
    void pause() throws Exception {
        signal("STOP");
    }

    /** SIGCONT after {@link #pause}. */
    void resume() throws Exception {
        signal("CONT");
    }

    private void signal(String name) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).redirectErrorStream(true)
                .start();
        String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed: " + out);
        }
    }

    /** The TCP port of its ready line (waits for it). */
    int port() {
        return port.join();
    }

    /** The server's process id. */
    long pid() {
        return process.pid();
    }

    /** Whether the process is still running. */
    boolean alive() {
        return process.isAlive();
    }

    /** Waits up to {@code seconds} for the process to end and returns its exit status. */
    int awaitExit(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the server is still running after " + seconds + " s");
        }
        return process.exitValue();
    }

    /** The server's threads, for a test that finds it stuck. */
    String threadDump() {
        try {
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    String.valueOf(process.pid()), "Thread.print").redirectErrorStream(true).start();
            String dump = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            jcmd.waitFor(30, TimeUnit.SECONDS);
            return dump;
        } catch (IOException | InterruptedException e) {
            return "no thread dump: " + e;
        }
    }

    /** SIGKILL: no shutdown hook, no orderly close of the journal. */
    public void kill() throws InterruptedException {
        killAll(this);
    }

    /**
     * SIGKILL to every server of {@code servers} (null or ended ones skipped) before waiting for any, so that they
     * end together; then waits until each has ended.
     */
    static void killAll(ServerProcess... servers) throws InterruptedException {
        for (ServerProcess server : servers) {
            if (server != null) {
                server.process.destroyForcibly();
            }
        }
        for (ServerProcess server : servers) {
            if (server != null) {
                server.process.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Waits, at most {@code seconds}, until the server has printed {@code text}, and returns the line that holds it.
     *
     * @throws AssertionError with its output when it did not, or ended first
     */
    String awaitLine(String text, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        synchronized (seen) {
            int at;
            while ((at = seen.indexOf(text)) < 0 && process.isAlive() && System.nanoTime() < deadline) {
                seen.wait(100);
            }
            if (at >= 0) {
                int end = seen.indexOf("\n", at);
                return seen.substring(seen.lastIndexOf("\n", at) + 1, end < 0 ? seen.length() : end);
            }
            throw new AssertionError("the server did not print '" + text + "' within " + seconds + " s ("
                    + (process.isAlive() ? "running" : "ended") + "; its output is in " + outputFile + "):\n" + seen);
        }
    }

    /** What the server has printed so far (stdout and stderr). */
    public String outputSoFar() {
        synchronized (seen) {
            return seen.toString();
        }
    }

    /** Everything the server printed (stdout and stderr) until it ended. */
    String output() throws Exception {
        return log.get(30, TimeUnit.SECONDS);
    }

    /** SIGTERM, waiting for the orderly stop. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
