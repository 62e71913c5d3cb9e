package org.wharfmq.flow.node;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A FileOutput node's start over a directory others may write into: a {@code .part} file its crash left is cut back
 * and finished, but a symbolic link of such a name is left alone, its target neither cut back nor moved in.
 */
class FileOutputNodeTest {

    @TempDir
    Path dir;

    @Test
    void aLinkNamedAsALeftPartFileIsNeitherFollowedNorFinished() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out"));
        Path outside = Files.writeString(dir.resolve("precious.txt"), "a\nb\nhal");
        Files.createSymbolicLink(out.resolve("orders-000003.csv.part"), outside);
        Files.writeString(out.resolve("orders-000001.csv.part"), "x\ny"); // a crash's: finished as before

        FileOutputNode node = FileOutputNode.directory(out).name("orders-{seq}.csv");
        node.open();
        node.close();

        assertEquals("a\nb\nhal", Files.readString(outside), "cut back through the link");
        assertTrue(Files.isSymbolicLink(out.resolve("orders-000003.csv.part")));
        assertFalse(Files.exists(out.resolve("orders-000003.csv")), "the link was finished as an output file");
        assertEquals("x\n", Files.readString(out.resolve("orders-000001.csv")));
    }
}
