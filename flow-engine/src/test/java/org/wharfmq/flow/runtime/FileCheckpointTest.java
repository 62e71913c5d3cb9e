package org.wharfmq.flow.runtime;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A FileInput node's checkpoint as its message's text, and the checkpoint file of the nodes before, in the watched
 * directory, which others write into: a symbolic link someone put under its name is never read through (it could
 * name any file the server may read, /dev/zero say).
 */
class FileCheckpointTest {

    private static final String OUTSIDE = "file=elsewhere.csv\nsize=1\nmodified=2\nrecords=3\noffset=4\nfailed=0\n";

    @TempDir
    Path dir;

    @Test
    void aCheckpointsTextGivesItBackWhateverItsFilesName() {
        FileCheckpoint checkpoint = new FileCheckpoint("or=ders: #1 \u00e9.csv", 10, 20, 1, 5, 1, true);
        assertEquals(checkpoint, FileCheckpoint.parse(checkpoint.text()));
        FileCheckpoint next = FileCheckpoint.start("a.csv", 3, 4).next(7, false, false);
        assertEquals(new FileCheckpoint("a.csv", 3, 4, 1, 7, 0, false), FileCheckpoint.parse(next.text()));
    }

    @Test
    void aTextThatIsNotACheckpointIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> FileCheckpoint.parse("hello"));
        assertThrows(IllegalArgumentException.class, () -> FileCheckpoint.parse("file=a\nsize=x"));
    }

    @Test
    void aLegacyCheckpointFileIsReadAsNotDone() throws Exception {
        Path location = FileCheckpoint.legacyLocation(dir, "f", "in");
        Files.writeString(location, OUTSIDE);
        assertEquals(new FileCheckpoint("elsewhere.csv", 1, 2, 3, 4, 0, false), FileCheckpoint.read(location));
        assertNull(FileCheckpoint.read(dir.resolve("none")));
    }

    @Test
    void aLegacyCheckpointThatIsALinkIsIgnored() throws Exception {
        Path watched = Files.createDirectories(dir.resolve("in"));
        Path outside = Files.writeString(dir.resolve("elsewhere.checkpoint"), OUTSIDE);
        Path location = FileCheckpoint.legacyLocation(watched, "f", "in");
        Files.createSymbolicLink(location, outside);

        assertNull(FileCheckpoint.read(location), "read through the link");
        assertFalse(FileCheckpoint.read(outside).done());
    }

    @Test
    void aLegacyCheckpointLongerThanAnyTheNodeWroteIsIgnored() throws Exception {
        Path location = FileCheckpoint.legacyLocation(dir, "f", "in");
        Files.writeString(location, OUTSIDE + "#" + "x".repeat(FileCheckpoint.MAX_BYTES));
        assertNull(FileCheckpoint.read(location));
    }
}
