package org.wharfmq.server.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Deletes the files of reclaimed journal segments on a thread of its own ({@code wharf-journal-deleter}).
 *
 * <p>Why not on the journal writer: unlinking a 64 MiB segment file whose pages are cached and whose disk blocks
 * were claimed ahead took the writer 75-225 ms a segment on the measured machine, and one reclamation pass may free
 * several segments; every send, acknowledgement and commit waited meanwhile (pauses of 0.2-0.5 s while draining a
 * deep persistent queue, issue 19 item 8, {@code docs/persistence.md}). The writer now only renames the segment's
 * directory to {@code NNNNNNNN}{@value #SUFFIX}, one atomic rename, and hands it over. Recovery reads only
 * directories named by eight digits, so a renamed segment is gone for the journal at once; one that a crash left
 * half deleted is removed at the next start ({@link #deleteLeftovers}).
 *
 * <p>One thread, first in first out: segments are deleted in the order reclaimed, oldest first, as before.
 */
final class SegmentDeleter implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(SegmentDeleter.class.getName());

    /** The name suffix of a segment directory waiting to be deleted. */
    static final String SUFFIX = ".deleted";

    /** How long {@link #close()} waits for pending deletions; what is left is removed at the next start. */
    private static final long CLOSE_WAIT_SECONDS = 30;

    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "wharf-journal-deleter");
        t.setDaemon(true);
        return t;
    });

    /**
     * Takes {@code segmentDirectory} out of the journal (renamed, on the caller's thread) and deletes it in the
     * background. Where the rename fails, deletes it in place, on the caller's thread, as a last resort.
     */
    void delete(Path segmentDirectory) {
        Path doomed = segmentDirectory.resolveSibling(segmentDirectory.getFileName() + SUFFIX);
        try {
            Files.move(segmentDirectory, doomed, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "Could not rename journal segment " + segmentDirectory
                    + " for deletion (" + e + "); deleting it in place");
            deleteTree(segmentDirectory);
            return;
        }
        thread.execute(() -> deleteTree(doomed));
    }

    /** Queues for deletion every directory of {@code journalRoot} that a crash left renamed but not deleted. */
    void deleteLeftovers(Path journalRoot) throws IOException {
        try (Stream<Path> list = Files.list(journalRoot)) {
            list.filter(p -> p.getFileName().toString().endsWith(SUFFIX) && Files.isDirectory(p))
                    .forEach(p -> thread.execute(() -> deleteTree(p)));
        }
    }

    private static void deleteTree(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            LOG.log(System.Logger.Level.WARNING, "Could not delete journal segment " + directory + ": " + e);
        }
    }

    /** Finishes the pending deletions (waiting at most {@value #CLOSE_WAIT_SECONDS} s) and stops the thread. */
    @Override
    public void close() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "Journal segments still being deleted after " + CLOSE_WAIT_SECONDS
                        + " s; what is left is deleted at the next start");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
