package org.wharfmq.perf.workload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removes the temporary data directories of the servers the runner starts. */
public final class TempFiles {

    private TempFiles() {
    }

    /** Deletes {@code dir} and everything under it; what cannot be deleted is left (it is in the temp directory). */
    public static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.getLogger(TempFiles.class.getName()).log(System.Logger.Level.DEBUG, "Could not delete " + dir + ": " + e);
        }
    }
}
