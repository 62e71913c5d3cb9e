package org.wharfmq.server.channels;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The tables of {@code wharf admin} as the docs show them: each example of a table in the docs named must have the
 * columns the command prints, so that a column added to the command is added to its examples too.
 */
final class DocTables {

    private static final Path ROOT = Path.of(System.getProperty("wharf.root"));

    private DocTables() {
    }

    /**
     * Checks that every example of the table whose heading is the first line of {@code printed} (a line of the docs
     * that begins with the heading's first two columns) has the same columns, and that each of {@code docs} has one.
     */
    static void assertDocsShowColumnsOf(String printed, String... docs) {
        List<String> columns = columns(printed.lines().findFirst().orElseThrow());
        String start = columns.get(0) + "  ";
        for (String doc : docs) {
            List<String> examples = new ArrayList<>();
            for (String line : read(doc).lines().toList()) {
                List<String> cells = columns(line);
                if (line.startsWith(start) && cells.size() > 1 && cells.get(1).equals(columns.get(1))) {
                    examples.add(line);
                    assertEquals(columns, cells, doc + " shows the table with other columns than the command prints: "
                            + line);
                }
            }
            assertFalse(examples.isEmpty(), doc + " has no example of the table " + columns);
        }
    }

    /** A table line's cells: separated by two spaces or more. */
    private static List<String> columns(String line) {
        return List.of(line.strip().split(" {2,}"));
    }

    private static String read(String doc) {
        try {
            return Files.readString(ROOT.resolve(doc));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
