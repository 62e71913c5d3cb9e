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
 * and finished, but a symbolic link of such a name is left alone, its target neither cut back nor moved in. And its
 * forces: one covers every record appended before it, a finished file's records are forced by the finish.
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

    /**
     * A .part file a crash left is cut back to its last delimiter without being read whole: one of 3 GiB (sparse here;
     * a flow without maxBytes writes such files) is finished, where reading it into one array failed the flow's start.
     * A delimiter across two of the blocks read backwards is found too.
     */
    @Test
    void aLeftPartFileLargerThanAnArrayIsCutBackAndFinished() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out"));
        long size = 3L << 30;
        String tail = "last\r\nhalf a rec";
        try (java.io.RandomAccessFile large = new java.io.RandomAccessFile(
                out.resolve("big-000001.dat.part").toFile(), "rw")) {
            large.seek(size - tail.length());
            large.write(tail.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }
        // the delimiter \r\n across the boundary of the last two blocks read backwards (of 64 KiB and a byte: the
        // delimiter's length less one of overlap)
        Path small = out.resolve("big-000002.dat.part");
        byte[] content = new byte[200_000];
        java.util.Arrays.fill(content, (byte) 'x');
        int boundary = content.length - (64 * 1024 + 1);
        content[boundary - 1] = '\r';
        content[boundary] = '\n';
        Files.write(small, content);

        FileOutputNode node = FileOutputNode.directory(out).name("big-{seq}.dat").delimiter("\r\n");
        node.open();
        node.close();

        Path finished = out.resolve("big-000001.dat");
        assertEquals(size - "half a rec".length(), Files.size(finished));
        try (java.nio.channels.FileChannel file = java.nio.channels.FileChannel.open(finished)) {
            java.nio.ByteBuffer end = java.nio.ByteBuffer.allocate(6);
            file.read(end, Files.size(finished) - 6);
            assertEquals("last\r\n", new String(end.array(), java.nio.charset.StandardCharsets.US_ASCII));
        }
        assertEquals(boundary + 1, Files.size(out.resolve("big-000002.dat")), "cut after the \\r\\n across blocks");
    }

    @Test
    void aForceCoversEveryRecordAppendedBeforeItAndAFinishForcesItsFile() throws Exception {
        FileOutputNode node = FileOutputNode.directory(dir).name("orders-{seq}.csv").maxRecords(3);
        node.open();
        long first = node.append("a".getBytes());
        long second = node.append("b".getBytes());
        assertEquals(0, node.durableRecords());
        node.force(first);
        assertEquals(2, node.durableRecords(), "the force covers the record appended after the first's");
        node.force(second); // nothing left to force: returns at once
        node.append("c".getBytes()); // the third record finishes the file, forced
        assertEquals(3, node.durableRecords());
        long fourth = node.append("d".getBytes());
        node.force(fourth);
        assertEquals(4, node.durableRecords());
        node.close();
        assertEquals("a\nb\nc\n", Files.readString(dir.resolve("orders-000001.csv")));
        assertEquals("d\n", Files.readString(dir.resolve("orders-000002.csv")));
    }

    @Test
    void concurrentAppendersEachFindTheirRecordForcedWhenTheirForceReturns() throws Exception {
        FileOutputNode node = FileOutputNode.directory(dir).name("orders-{seq}.csv").maxRecords(7);
        node.open();
        int threads = 4;
        int each = 200;
        java.util.List<Throwable> failures = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.List<Thread> writers = new java.util.ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < each; i++) {
                        long ticket = node.append("x".getBytes());
                        node.force(ticket);
                        if (node.durableRecords() < ticket) {
                            failures.add(new AssertionError("record " + ticket + " not forced by its force"));
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            writers.add(writer);
            writer.start();
        }
        for (Thread writer : writers) {
            writer.join();
        }
        node.close();
        assertEquals(java.util.List.of(), failures);
        assertEquals(threads * each, node.durableRecords());
    }

    @Test
    void withSyncFinishNothingIsForcedBeforeTheFileIsFinished() throws Exception {
        FileOutputNode node = FileOutputNode.directory(dir).name("orders-{seq}.csv").sync(FileOutputNode.Sync.FINISH);
        node.open();
        node.force(node.append("a".getBytes()));
        assertEquals(0, node.durableRecords());
        node.close();
        assertEquals(1, node.durableRecords());
    }
}
