package org.wharfmq.perf.driver;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** F-FILE's feeders see the node's progress in its archive folder: a file moved in is seen once, and only then. */
class ArchiveWatchTest {

    @Test
    void aFileMovedIntoTheArchiveIsSeenOnceAndNothingElseIs(@TempDir Path dir) throws Exception {
        Path archive = dir.resolve("archive");
        ArchiveWatch watch = new ArchiveWatch(archive);
        assertFalse(watch.advanced(), "no folder yet: nothing archived");
        Files.createDirectory(archive);
        Files.setLastModifiedTime(archive, FileTime.fromMillis(0)); // a move now cannot fall in the same clock tick
        assertTrue(watch.advanced(), "the node made its archive folder");
        assertFalse(watch.advanced(), "and nothing since");
        Path file = Files.writeString(dir.resolve("a~0.msg"), "x");
        assertFalse(watch.advanced(), "a file written beside the archive is not progress");
        Files.move(file, archive.resolve("a~0.msg"));
        assertTrue(watch.advanced(), "a file archived is");
        assertFalse(watch.advanced(), "once");
    }
}
