package org.wharfmq.perf.workload;

import org.wharfmq.perf.PerfMain;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * Starts each process as a child JVM running {@link PerfMain} on this JVM's classpath, so servers, requesters and
 * responders do not share a heap, a JIT or a garbage collector (as in the seeds' measurements).
 */
public final class ChildJvmLauncher implements Launcher {

    private final String classpath;
    private final List<String> jvmOptions;
    private final Consumer<String> echo;

    /** Child JVMs with {@code jvmOptions}, their output lines passed to {@code echo}. */
    public ChildJvmLauncher(List<String> jvmOptions, Consumer<String> echo) {
        this.classpath = currentClasspath();
        this.jvmOptions = List.copyOf(jvmOptions);
        this.echo = echo;
    }

    /**
     * This JVM's full classpath: surefire's {@code surefire.test.class.path} when running under it, else
     * {@code java.class.path} with any manifest {@code Class-Path} of its jars expanded (launchers that start
     * the JVM from a single "pathing" jar).
     */
    static String currentClasspath() {
        String surefire = System.getProperty("surefire.test.class.path");
        if (surefire != null && !surefire.isBlank()) {
            return surefire;
        }
        Set<String> entries = new LinkedHashSet<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.isBlank()) {
                continue;
            }
            entries.add(entry);
            if (entry.endsWith(".jar") && Files.isRegularFile(Path.of(entry))) {
                entries.addAll(manifestClassPath(Path.of(entry)));
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static List<String> manifestClassPath(Path jar) {
        List<String> entries = new ArrayList<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            String cp = manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
            if (cp != null) {
                for (String url : cp.trim().split("\\s+")) {
                    Path p = url.startsWith("file:") ? Path.of(java.net.URI.create(url)) : jar.resolveSibling(url);
                    entries.add(p.toString());
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            // not a readable jar: keep the entry as it is
        }
        return entries;
    }

    @Override
    public Launched launch(String name, List<String> args) throws IOException {
        return launch(name, args, List.of());
    }

    @Override
    public Launched launch(String name, List<String> args, List<String> moreJvmOptions) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JvmFlags.forChildren());
        command.addAll(jvmOptions);
        command.addAll(moreJvmOptions);
        command.add("-cp");
        command.add(classpath);
        command.add(PerfMain.class.getName());
        command.addAll(args);
        if (args.get(0).startsWith("-")) {
            command.addAll(List.of("-xs", "true"));   // a child driver stops when its input closes (Launched.stop)
        }
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        OutputLines lines = new OutputLines(line -> echo.accept("[" + name + "] " + line));
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.accept(line);
                }
            } catch (IOException e) {
                lines.accept("(output lost: " + e + ")");
            } finally {
                lines.end();
            }
        }, "perf-output-" + name);
        reader.setDaemon(true);
        reader.start();
        return new Child(name, process, lines);
    }

    private record Child(String name, Process process, OutputLines lines) implements Launched {

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
            return process.onExit().thenApply(Process::exitValue);
        }

        @Override
        public void stop() {
            try {
                process.getOutputStream().close();
            } catch (IOException e) {
                process.destroy();
            }
        }

        @Override
        public int awaitExit(Duration timeout) throws TimeoutException, InterruptedException {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new TimeoutException(name + (timeout.isZero() ? " is still running" : " did not exit within "
                        + timeout.toSeconds() + " s") + "; its last lines: " + lines.tail());
            }
            return process.exitValue();
        }

        @Override
        public long pid() {
            return process.pid();
        }

        @Override
        public void close() {
            // its own children first (the replicated peer's members): killed forcibly, it could not stop them
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            if (process.isAlive()) {
                process.destroyForcibly();
            }
        }
    }
}
