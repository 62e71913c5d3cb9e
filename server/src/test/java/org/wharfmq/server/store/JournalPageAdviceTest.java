package org.wharfmq.server.store;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The journal's page advice reaches the kernel: on Linux, the mapping the writer appends through carries
 * MADV_RANDOM ({@code rr} in the mapping's VmFlags in /proc/self/smaps). The journal carries on without the advice
 * when it cannot give it (no native access, no posix library), so only the kernel's own view tells the two apart.
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
}
