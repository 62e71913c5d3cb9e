package org.wharfmq.server.cli;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The {@code wharf} command in a child JVM, as a user runs it, from this JVM's class path. */
public final class WharfProcess {

    private WharfProcess() {
    }

    /** Starts {@code wharf args...} in this process's working directory. */
    public static Process start(String... args) throws IOException {
        return start(null, null, args);
    }

    /**
     * Starts {@code wharf args...} in {@code workingDirectory} (null: this process's), its standard error written to
     * {@code errors} (null: a pipe, which the caller reads).
     */
    public static Process start(Path workingDirectory, Path errors, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // the journal (Chronicle Queue) needs the same --add-opens/--add-exports as this JVM, and on Java 24+ the
        // same leave to use sun.misc.Unsafe's memory access, without which every run warns on standard error (bin/wharf
        // passes bin/jvm.options and bin/jvm24.options)
        for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports")
                    || argument.startsWith("--sun-misc-unsafe-memory-access")) {
                command.add(argument);
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(WharfCommand.class.getName());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        if (workingDirectory != null) {
            builder.directory(workingDirectory.toFile());
        }
        if (errors != null) {
            builder.redirectError(errors.toFile());
        }
        return builder.start();
    }
}
