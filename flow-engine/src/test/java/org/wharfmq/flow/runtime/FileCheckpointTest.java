package org.wharfmq.flow.runtime;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A FileInput node's checkpoint lives in the watched directory, which others write into: a symbolic link someone put
 * under either of its names is never written through nor read through (it could name any file the server may write,
 * its security file say, or /dev/zero).
 */
class FileCheckpointTest {

    private static final String OUTSIDE = "file=elsewhere.csv\nsize=1\nmodified=2\nrecords=3\noffset=4\nfailed=0\n";

    @TempDir
    Path dir;

    @Test
    void aLinkNamedAsTheCheckpointWrittenAsideIsReplacedNotWrittenThrough() throws Exception {
        Path watched = Files.createDirectories(dir.resolve("in"));
        Path outside = Files.writeString(dir.resolve("precious.txt"), "not the flow's");
        Path location = FileCheckpoint.location(watched, "f", "in");
        Files.createSymbolicLink(location.resolveSibling(location.getFileName() + ".next"), outside);

        FileCheckpoint checkpoint = new FileCheckpoint("orders.csv", 10, 20, 1, 5, 0);
        checkpoint.write(location);

        assertEquals("not the flow's", Files.readString(outside));
        assertTrue(Files.isRegularFile(location, LinkOption.NOFOLLOW_LINKS));
        assertEquals(checkpoint, FileCheckpoint.read(location));
    }

    @Test
    void aCheckpointThatIsALinkIsIgnoredAndTheNextOneReplacesTheLinkNotItsTarget() throws Exception {
        Path watched = Files.createDirectories(dir.resolve("in"));
        Path outside = Files.writeString(dir.resolve("elsewhere.checkpoint"), OUTSIDE);
        Path location = FileCheckpoint.location(watched, "f", "in");
        Files.createSymbolicLink(location, outside);

        assertNull(FileCheckpoint.read(location), "read through the link");

        new FileCheckpoint("orders.csv", 10, 20, 1, 5, 0).write(location);
        assertEquals(OUTSIDE, Files.readString(outside));
        assertTrue(Files.isRegularFile(location, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void aCheckpointLongerThanAnyTheNodeWritesIsIgnored() throws Exception {
        Path location = FileCheckpoint.location(dir, "f", "in");
        Files.writeString(location, OUTSIDE + "#" + "x".repeat(FileCheckpoint.MAX_BYTES));
        assertNull(FileCheckpoint.read(location));
    }
}
