package org.wharfmq.client.core;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The core client names neither a JMS API nor the JMS facade: no class of it refers to {@code javax.jms},
 * {@code jakarta.jms} or {@code org.wharfmq.jms} (a reference to a class is its name in the class file's constant
 * pool). So the server's clients of other queue managers can use it without JMS, the Eclipse Transformer has nothing
 * to change in it, and it never calls the facade, whose callbacks are the core's own interfaces.
 */
class CoreIndependenceTest {

    private static final List<String> FORBIDDEN = List.of("javax/jms/", "jakarta/jms/", "org/wharfmq/jms/");

    @Test
    void noClassOfTheCoreNamesJmsOrTheFacade() throws Exception {
        Path classes = Path.of(ClientException.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> offenders = new ArrayList<>();
        int checked = 0;
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                checked++;
                String text = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
                for (String name : FORBIDDEN) {
                    if (text.contains(name)) {
                        offenders.add(classes.relativize(file) + " names " + name);
                    }
                }
            }
        }
        assertTrue(checked > 20, "found the core's classes in " + classes + ": " + checked);
        assertEquals(List.of(), offenders);
    }

    @Test
    void theCheckSeesANameInAClassFile() throws IOException {
        // the check above would pass on nothing; it sees the names as the compiler writes them
        byte[] self = CoreIndependenceTest.class.getResourceAsStream("CoreIndependenceTest.class").readAllBytes();
        assertTrue(new String(self, StandardCharsets.ISO_8859_1).contains("org/wharfmq/client/core/ClientException"));
    }
}
