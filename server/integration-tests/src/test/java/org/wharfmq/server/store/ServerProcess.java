package org.wharfmq.server.store;

import org.wharfmq.server.cli.WharfCommand;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
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
 * this JVM's --add-opens/--add-exports flags, so a test can kill it with SIGKILL and start it again.
 */
final class ServerProcess implements AutoCloseable {

    private static final Pattern READY = Pattern.compile("ready on tcp://[^:]+:(\\d+)");

    private final Process process;
    private final int port;
    private final CompletableFuture<String> log = new CompletableFuture<>();

    private ServerProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts the server and waits for its ready line. */
    static ServerProcess start(Path data, String... extraArgs) throws IOException, InterruptedException {
        return start(data, 0, extraArgs);
    }

    /**
     * Starts the server on TCP port {@code port} (0: any free one) and waits for its ready line: a server restarted on
     * the port it had is found again by clients that reconnect.
     */
    static ServerProcess start(Path data, int port, String... extraArgs) throws IOException, InterruptedException {
        List<String> command = command(data, port, extraArgs);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = out.readLine()) != null) {
            seen.append(line).append('\n');
            int listening = readyPort(line);
            if (listening >= 0) {
                ServerProcess server = new ServerProcess(process, listening);
                server.collect(out, seen);
                return server;
            }
        }
        process.waitFor(10, TimeUnit.SECONDS);
        throw new IllegalStateException("the server exited before it was ready:\n" + seen);
    }

    /**
     * The command line of a server on {@code data}, port 0: this JVM's java, its --add-opens/--add-exports flags and
     * its class path.
     */
    static List<String> command(Path data, String... extraArgs) {
        return command(data, 0, extraArgs);
    }

    private static List<String> command(Path data, int port, String... extraArgs) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports")) {
                command.add(argument);
            }
        }
        command.add("-XX:TieredStopAtLevel=1"); // starts faster; these servers live for a second
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(WharfCommand.class.getName());
        command.add("server");
        command.add("--port");
        command.add(String.valueOf(port));
        command.add("--data");
        command.add(data.toString());
        command.addAll(List.of(extraArgs));
        return command;
    }

    /** The port of a server's ready line, or -1 when {@code line} is not it. */
    static int readyPort(String line) {
        Matcher m = READY.matcher(line);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** Keeps reading the output (so the child never blocks on a full pipe) and keeps it for diagnostics. */
    private void collect(BufferedReader out, StringBuilder seen) {
        Thread reader = new Thread(() -> {
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    seen.append(line).append('\n');
                }
            } catch (IOException ignored) {
                // the process died: that is what these tests do
            }
            log.complete(seen.toString());
        }, "server-output");
        reader.setDaemon(true);
        reader.start();
    }

    String url() {
        return "tcp://127.0.0.1:" + port;
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
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
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
