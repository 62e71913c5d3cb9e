package org.wharfmq.server.store;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ./mvnw -B verify -Pquick} leaves out the tests tagged {@code slow}; every test class of the repository that
 * starts a server in a child JVM ({@link ServerProcess}: kill -9, failover, restart) must carry the tag, so the quick
 * build stays quick when such a test is added.
 */
class SlowTagTest {

    private static final Pattern STARTS_A_SERVER_PROCESS = Pattern.compile("ServerProcess\\.(start|launch|command)");
    private static final Pattern A_TEST = Pattern.compile("@(Test|ParameterizedTest|RepeatedTest)\\b");

    @Test
    void everyTestThatStartsAServerProcessIsTaggedSlow() throws IOException {
        List<Path> found = new ArrayList<>();
        Files.walkFileTree(Path.of(System.getProperty("wharf.root")), new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                // build output (other modules' builds may be writing there) and version control hold no test source
                String name = String.valueOf(dir.getFileName());
                return name.equals("target") || name.startsWith(".") ? FileVisitResult.SKIP_SUBTREE
                        : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                if (file.toString().endsWith(".java") && file.toString().contains("/src/test/java/")) {
                    String source = read(file);
                    if (A_TEST.matcher(source).find() && STARTS_A_SERVER_PROCESS.matcher(source).find()) {
                        found.add(file);
                    }
                }
                return FileVisitResult.CONTINUE;
            }
        });
        List<Path> untagged = found.stream().filter(f -> !read(f).contains("@Tag(\"slow\")")).toList();
        assertTrue(found.size() >= 8, "the scan finds the process tests (CrashRecoveryTest, StandbyTest, ...): " + found);
        assertEquals(List.of(), untagged, "tests that start server processes without @Tag(\"slow\")");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
