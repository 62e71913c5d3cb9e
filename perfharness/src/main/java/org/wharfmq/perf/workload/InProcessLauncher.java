package org.wharfmq.perf.workload;

import org.wharfmq.perf.driver.Driver;
import org.wharfmq.perf.options.PerfOptions;
import org.wharfmq.perf.relay.RelayServer;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Runs every process on a thread of this JVM: quick to start, so the test suite's smoke runs use it. Its
 * numbers are not measurements (one heap, one JIT, one CPU account for everything).
 */
public final class InProcessLauncher implements Launcher {

    private final Consumer<String> echo;

    /** Output lines go to {@code echo}. */
    public InProcessLauncher(Consumer<String> echo) {
        this.echo = echo;
    }

    @Override
    public Launched launch(String name, List<String> args) {
        OutputLines lines = new OutputLines(line -> echo.accept("[" + name + "] " + line));
        PrintStream out = new PrintStream(new LineSplitter(lines), true, StandardCharsets.UTF_8);
        Runnable stop;
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        Thread thread;
        if (args.get(0).equals("server")) {
            ServerMain server = new ServerMain(args.subList(1, args.size()), out);
            stop = server::stop;
            thread = new Thread(() -> complete(exit, lines, server::run), "perf-inproc-" + name);
        } else if (args.get(0).equals("relay")) {
            RelayServer relay = new RelayServer(args.subList(1, args.size()), out);
            stop = relay::stop;
            thread = new Thread(() -> complete(exit, lines, relay::serve), "perf-inproc-" + name);
        } else if (args.get(0).startsWith("-")) {
            Driver driver = new Driver(PerfOptions.parse(args.toArray(String[]::new)), out);
            stop = driver::stop;
            thread = new Thread(() -> complete(exit, lines, () -> driver.run().passed() ? 0 : 1), "perf-inproc-" + name);
        } else {
            throw new IllegalArgumentException("In-process runs support the Wharf server, the relay and drivers only, not '" + args.get(0) + "'");
        }
        thread.setDaemon(true);
        thread.start();
        return new InProcess(name, lines, stop, exit);
    }

    private interface Body {
        int call() throws Exception;
    }

    private static void complete(CompletableFuture<Integer> exit, OutputLines lines, Body body) {
        try {
            exit.complete(body.call());
        } catch (Exception | Error e) {
            lines.accept("failed: " + e);
            exit.complete(1);
        } finally {
            lines.end();
        }
    }

    private record InProcess(String name, OutputLines lines, Runnable stopAction, CompletableFuture<Integer> exit)
            implements Launched {

        @Override
        public String awaitLine(String prefix, Duration timeout) throws TimeoutException, InterruptedException {
            return lines.await(prefix, timeout, name);
        }

        @Override
        public String latestLine(String prefix) {
            return lines.latest(prefix);
        }

        @Override
        public CompletableFuture<Integer> onExit() {
            return exit.copy();
        }

        @Override
        public void stop() {
            stopAction.run();
        }

        @Override
        public int awaitExit(Duration timeout) throws TimeoutException, InterruptedException {
            try {
                return exit.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                return 1;
            } catch (TimeoutException e) {
                throw new TimeoutException(name + (timeout.isZero() ? " is still running" : " did not end within "
                        + timeout.toSeconds() + " s") + "; its last lines: " + lines.tail());
            }
        }

        @Override
        public long pid() {
            return ProcessHandle.current().pid();
        }

        @Override
        public void close() {
            stopAction.run();
        }
    }

    /** Turns what a PrintStream writes into lines. */
    private static final class LineSplitter extends OutputStream {
        private final Consumer<String> lines;
        private final ByteArrayOutputStream current = new ByteArrayOutputStream();

        LineSplitter(Consumer<String> lines) {
            this.lines = lines;
        }

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                lines.accept(current.toString(StandardCharsets.UTF_8).stripTrailing());
                current.reset();
            } else {
                current.write(b);
            }
        }
    }
}
