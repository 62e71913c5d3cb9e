package org.wharfmq.server.store;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Measures the raw sync rate of a disk: 4 KiB writes, each followed by a sync ({@code fdatasync}), for a few
 * seconds. This is the ceiling of a journal without group commit; see docs/performance-log.md.
 *
 * <pre>java -cp ... org.wharfmq.server.store.SyncRateProbe [DIRECTORY] [SECONDS]</pre>
 */
public final class SyncRateProbe {

    private SyncRateProbe() {
    }

    public static void main(String[] args) throws Exception {
        Path directory = Path.of(args.length > 0 ? args[0] : "data");
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Files.createDirectories(directory);
        Path file = Files.createTempFile(directory, "sync-probe", ".bin");
        ByteBuffer block = ByteBuffer.allocateDirect(4096);
        long writes = 0;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            long start = System.nanoTime();
            while (System.nanoTime() < end) {
                block.clear();
                channel.write(block, (writes % 256) * 4096); // rewrite the same 1 MiB: no file growth per write
                channel.force(false);
                writes++;
            }
            double elapsed = (System.nanoTime() - start) / 1e9;
            System.out.printf("directory=%s syncedWrites=%d seconds=%.1f syncedWritesPerSecond=%.0f%n",
                    directory.toAbsolutePath(), writes, elapsed, writes / elapsed);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
