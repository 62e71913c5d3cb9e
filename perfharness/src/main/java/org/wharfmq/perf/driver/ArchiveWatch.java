package org.wharfmq.perf.driver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Objects;

/**
 * Whether a FileInput node is still taking files: its archive folder gained a file since the last look. A file
 * moved into a folder changes the folder's modification time, so one {@code stat} per look tells, however many files
 * the folder holds (a run archives hundreds of thousands; listing them would cost more than the node's work). Two
 * files archived within one tick of the file system's clock may leave the time unchanged: the next one changes it,
 * so a node that keeps archiving is seen to. Owned by one feeder thread.
 */
final class ArchiveWatch {

    private final Path folder;
    /** The folder's modification time at the last look; null while it does not exist. */
    private FileTime seen;

    /** Watches {@code folder} from now on (it may not exist yet: the node creates it). */
    ArchiveWatch(Path folder) {
        this.folder = folder;
        this.seen = modified();
    }

    /** True when the folder changed (a file was archived) since the last call, or since this watch was made. */
    boolean advanced() {
        FileTime now = modified();
        if (Objects.equals(now, seen)) {
            return false;
        }
        seen = now;
        return true;
    }

    private FileTime modified() {
        try {
            return Files.getLastModifiedTime(folder);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException("reading the modification time of " + folder, e);
        }
    }
}
