package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The journal's page advice reaches the kernel: on Linux, the mapping the writer appends through carries
 * MADV_RANDOM ({@code rr} in the mapping's VmFlags in /proc/self/smaps). The journal carries on without the advice
 * when it cannot give it (no native access, no posix library), so only the kernel's own view tells the two apart.
 * Large records in direct memory are written beside that mapping, with positional writes, and never mapped in by
 * the writer; large records come back whole across the boundaries of Chronicle's mapped chunks, written through the
 * mapping (on the heap) or beside it (in direct memory).
 */
class JournalPageAdviceTest {

    private static final Path SMAPS = Path.of("/proc/self/smaps");
    /** Starts each mapping's entry in smaps: its address range. */
    private static final Pattern MAPPING_HEADER = Pattern.compile("[0-9a-f]+-[0-9a-f]+ ");
    /** Small: the test appends one short record. */
    private static final long BLOCK_SIZE = 1L << 20;

    @TempDir
    Path data;

    @Test
    void theMappingTheWriterAppendsThroughIsAdvisedRandomAccess() throws Exception {
        assumeTrue(System.getProperty("os.name").startsWith("Linux") && Files.isReadable(SMAPS),
                "madvise(2) and /proc/self/smaps are Linux's");
        Path root = data.resolve("journal");
        try (Journal journal = Journal.open(root, false, BLOCK_SIZE)) {
            journal.startAfter(0);
            journal.append(Unpooled.wrappedBuffer("one record".getBytes(StandardCharsets.UTF_8)), null, 0);

            List<List<String>> flags = vmFlagsOfSegmentMappings(root.toRealPath());
            assertFalse(flags.isEmpty(), "no mapping of a journal segment file in " + SMAPS);
            assertTrue(flags.stream().anyMatch(f -> f.contains("rr")),
                    "no journal mapping has the random-read advice (rr); VmFlags of its mappings: " + flags);
        }
    }

    @ParameterizedTest(name = "direct memory: {0}")
    @ValueSource(booleans = {false, true})
    void largeRecordsComeBackWholeAcrossChunkBoundaries(boolean direct) throws Exception {
        Path root = data.resolve("journal");
        // Chronicle maps a file in chunks of the block size and takes documents up to a quarter of it: 4 MiB
        // chunks, records of up to 1 MiB, 6.5 MiB in all, so that records start near and run past chunk ends
        int[] sizes = {900 << 10, 32 << 10, 1000 << 10, 1000 << 10, 1000 << 10, 100, 1000 << 10, 1000 << 10,
                1000 << 10, 4095, Journal.WRITTEN_BESIDE_THE_MAP_BYTES, Journal.WRITTEN_BESIDE_THE_MAP_BYTES + 4097};
        long[] indexes = new long[sizes.length];
        try (Journal journal = Journal.open(root, false, 4L << 20)) {
            journal.startAfter(0);
            for (int i = 0; i < sizes.length; i++) {
                indexes[i] = journal.append(Unpooled.wrappedBuffer(new byte[] {(byte) i}), body(i, sizes[i], direct),
                        0x01020304 + i);
            }
            assertRecords(journal, indexes, sizes);
        }
    }

    @Test
    void largeRecordsInDirectMemoryAreWrittenBesideTheMapAndComeBackAfterAReopen() throws Exception {
        assumeTrue(System.getProperty("os.name").startsWith("Linux") && Files.isReadable(SMAPS),
                "/proc/self/smaps is Linux's");
        Path root = data.resolve("journal");
        // 2 MB messages behind fields of odd lengths: each body starts and ends inside a page
        int[] sizes = new int[8];
        long[] indexes = new long[sizes.length];
        long bodies = 0;
        try (Journal journal = Journal.open(root, false, 64L << 20)) {
            journal.startAfter(0);
            for (int i = 0; i < sizes.length; i++) {
                sizes[i] = (2 << 20) + 1000 * i + 1;
                bodies += sizes[i];
                indexes[i] = journal.append(Unpooled.wrappedBuffer(new byte[] {(byte) i}), body(i, sizes[i], true),
                        0x01020304 + i);
            }
            // written through the map, every page of every body is resident in the mapping (16 MiB and more)
            long resident = residentBytesOfSegmentMappings(root.toRealPath());
            assertTrue(resident < bodies / 8, "the writer's mappings of the segment hold " + resident
                    + " bytes after " + bodies + " bytes of bodies in direct memory: written through the map, not beside it");
        }
        try (Journal journal = Journal.open(root, false, 64L << 20)) {
            assertRecords(journal, indexes, sizes);
        }
    }

    /** Record {@code i}'s body: {@link #pattern}, on the heap or in direct memory. */
    private static ByteBuf body(int i, int size, boolean direct) {
        byte[] bytes = pattern(i, size);
        return direct ? Unpooled.directBuffer(size).writeBytes(bytes) : Unpooled.wrappedBuffer(bytes);
    }

    /** Record {@code i} at {@code indexes[i]} of segment 1 is its type byte {@code i}, its body, its CRC word. */
    private static void assertRecords(Journal journal, long[] indexes, int[] sizes) {
        ByteBuf read = Unpooled.buffer();
        try (JournalReader reader = journal.reader()) {
            for (int i = 0; i < sizes.length; i++) {
                assertTrue(reader.document(1, indexes[i], read), "record " + i);
                assertEquals(1 + sizes[i] + 4, read.readableBytes(), "record " + i);
                assertEquals(i, read.readByte());
                byte[] body = new byte[sizes[i]];
                read.readBytes(body);
                assertArrayEquals(pattern(i, sizes[i]), body, "record " + i);
                assertEquals(0x01020304 + i, read.readInt());
            }
        }
    }

    private static byte[] pattern(int record, int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (record * 31 + i * 7 + (i >>> 12));
        }
        return bytes;
    }

    /** The VmFlags of each mapping of a {@code .cq4} file (a segment's data, not its metadata) below {@code root}. */
    private static List<List<String>> vmFlagsOfSegmentMappings(Path root) throws IOException {
        List<List<String>> flags = new ArrayList<>();
        boolean inSegmentMapping = false;
        for (String line : Files.readAllLines(SMAPS)) {
            if (line.startsWith("VmFlags:")) {
                if (inSegmentMapping) {
                    flags.add(Arrays.asList(line.substring("VmFlags:".length()).trim().split("\\s+")));
                }
            } else if (MAPPING_HEADER.matcher(line).lookingAt()) {
                // a mapping's header: address range, permissions, offset, device, inode, then the path if a file
                int slash = line.indexOf('/');
                String path = slash < 0 ? "" : line.substring(slash);
                inSegmentMapping = path.startsWith(root.toString()) && path.endsWith(".cq4");
            }
        }
        return flags;
    }

    /** The resident bytes (Rss) of this process's mappings of the {@code .cq4} files below {@code root}. */
    private static long residentBytesOfSegmentMappings(Path root) throws IOException {
        long kib = 0;
        boolean inSegmentMapping = false;
        for (String line : Files.readAllLines(SMAPS)) {
            if (MAPPING_HEADER.matcher(line).lookingAt()) {
                int slash = line.indexOf('/');
                String path = slash < 0 ? "" : line.substring(slash);
                inSegmentMapping = path.startsWith(root.toString()) && path.endsWith(".cq4");
            } else if (inSegmentMapping && line.startsWith("Rss:")) {
                kib += Long.parseLong(line.substring("Rss:".length()).replace("kB", "").trim());
            }
        }
        return kib << 10;
    }
}
