package org.wharfmq.server.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The example folders of config/examples, copied and set up as their files tell a reader to. */
public final class ExampleFolders {

    private ExampleFolders() {
    }

    /** Folder {@code name} of the repository's config/examples. */
    public static Path of(String name) {
        return Path.of(System.getProperty("wharf.root"), "config", "examples", name);
    }

    /** Copies example folder {@code from} to {@code to}, without its keys (tls/), which each test makes anew. */
    public static Path copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            files.filter(f -> !from.relativize(f).startsWith("tls")).forEach(f -> {
                try {
                    Files.copy(f, to.resolve(from.relativize(f).toString()));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
        assertFalse(Files.exists(to.resolve("tls")), "keys made here, never copied");
        return to;
    }

    /**
     * Runs the example's make-keys.sh with {@code arguments} and {@code environment}, with the keytool of the JDK
     * running the test; it must end well. What it printed.
     */
    public static String makeKeys(Path example, Map<String, String> environment, String... arguments)
            throws Exception {
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of("sh", "make-keys.sh"));
        command.addAll(java.util.List.of(arguments));
        ProcessBuilder run = new ProcessBuilder(command).directory(example.toFile()).redirectErrorStream(true);
        run.environment().putAll(environment);
        run.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":" + System.getenv("PATH"));
        // each keytool is a JVM of its own, living a second: the JIT's first tier and the serial collector halve its
        // CPU (about 0.6 against 1.1 s each, at load 46), and a script makes up to 18 of them
        run.environment().put("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
        Process process = run.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), output);
        assertEquals(0, process.exitValue(), output);
        return output;
    }
}
