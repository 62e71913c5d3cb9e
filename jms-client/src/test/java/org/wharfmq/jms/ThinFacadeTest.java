package org.wharfmq.jms;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What moved into the core client stays there: no class of the JMS facade names the selector grammar (the core checks
 * a selector before it is sent, for consumers and browses alike). A reference is a name in the class file's constant
 * pool, as {@code CoreIndependenceTest} reads them.
 */
class ThinFacadeTest {

    private static final List<String> CORE_ONLY = List.of("org/wharfmq/protocol/selector/");

    @Test
    void noClassOfTheFacadeNamesWhatTheCoreDoes() throws Exception {
        Path location = Path.of(WharfConnection.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        // a directory of classes here; the jakarta client's jar where jakarta-tests run this test transformed
        try (FileSystem jar = Files.isRegularFile(location) ? FileSystems.newFileSystem(location) : null) {
            check(jar == null ? location : jar.getPath("/"), location);
        }
    }

    private static void check(Path classes, Path location) throws Exception {
        List<String> offenders = new ArrayList<>();
        int checked = 0;
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                checked++;
                String text = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
                for (String name : CORE_ONLY) {
                    if (text.contains(name)) {
                        offenders.add(file + " names " + name);
                    }
                }
            }
        }
        assertTrue(checked > 20, "found the facade's classes in " + location + ": " + checked);
        assertEquals(List.of(), offenders);
    }
}
