package org.wharfmq.server.cli;

import org.wharfmq.server.it.ChildJvm;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** The {@code wharf} command in a child JVM, as a user runs it, from this JVM's class path ({@link ChildJvm}). */
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
        ProcessBuilder builder = builder(args);
        if (workingDirectory != null) {
            builder.directory(workingDirectory.toFile());
        }
        if (errors != null) {
            builder.redirectError(errors.toFile());
        }
        return builder.start();
    }

    /** {@code wharf args...} in a child JVM, for the caller to redirect and start. */
    public static ProcessBuilder builder(String... args) {
        return new ProcessBuilder(command(List.of(), List.of(args)));
    }

    /** The command line of {@code wharf arguments} (any command: {@code admin ...}), with {@code jvmOptions}. */
    public static List<String> command(List<String> jvmOptions, List<String> arguments) {
        return ChildJvm.command(WharfCommand.class, jvmOptions, arguments);
    }
}
