package org.wharfmq.server.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.config.ServerConfig;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wharfmq.server.store.StoreHarness.Message;
import static org.wharfmq.server.store.StoreHarness.Recovered;

/**
 * The last journal file's tail is damaged (garbage written over the last record, or the tail lost to zeros, as a
 * file system leaves a preallocated file whose last pages never reached the disk): recovery restores everything
 * before the damage, reports it, and the journal goes on working.
 */
class TornTailTest {

    private static final String MARKER = "LAST-RECORD-0123456789-ABCDEFGHIJ";

    @TempDir
    Path data;

    @Test
    void garbageOverTheLastRecordIsReportedAndIgnored() throws Exception {
        writeNineMessagesAndAMarkedOne();
        damage((file, at) -> {
            byte[] garbage = new byte[MARKER.length()];
            new Random(42).nextBytes(garbage);
            file.position(at);
            file.put(garbage);
        });
        recoverTheFirstNineAndKeepWorking();
    }

    @Test
    void aTailLostToZerosIsReportedAndIgnored() throws Exception {
        writeNineMessagesAndAMarkedOne();
        damage((file, at) -> {
            for (int i = at; i < file.limit(); i++) {
                file.put(i, (byte) 0);
            }
        });
        recoverTheFirstNineAndKeepWorking();
    }

    /**
     * A run killed while Chronicle was creating a segment's file leaves the file without its header. Chronicle,
     * asked to read such a file, waits for another process to finish writing the header: 10-20 s a file, at every
     * start. Such a file holds no record, so recovery skips it at once and says so.
     */
    @Test
    @org.junit.jupiter.api.Timeout(value = 8, unit = java.util.concurrent.TimeUnit.SECONDS)
    void aSegmentFileLeftWithoutItsHeaderIsSkippedAtOnce() throws Exception {
        writeNineMessagesAndAMarkedOne();
        Path written;
        try (Stream<Path> files = Files.walk(data.resolve("journal"))) {
            written = files.filter(p -> p.toString().endsWith(".cq4")).max(Path::compareTo).orElseThrow();
        }
        Path unfinished = data.resolve("journal").resolve("00000099").resolve(written.getFileName());
        Files.createDirectories(unfinished.getParent());
        try (RandomAccessFile raf = new RandomAccessFile(unfinished.toFile(), "rw")) {
            raf.setLength(Files.size(written)); // created and sized, nothing written yet
        }
        Recovered recovered = new Recovered();
        try (JournalMessageStore store = StoreHarness.open(StoreHarness.config(data), recovered)) {
            assertEquals(10, recovered.messages.size(), recovered.messages.toString());
            List<String> damage = store.recoveryDamage();
            assertEquals(1, damage.size(), "reported: " + damage);
            assertTrue(damage.get(0).contains("segment 99") && damage.get(0).contains("no header"), damage.get(0));
            StoreHarness.put(store, Message.of("Q", 11, "after"));
        }
        Recovered again = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(StoreHarness.config(data), again)) {
            assertEquals(11, again.messages.size(), "the next segment is numbered after the empty one");
        }
    }

    private void writeNineMessagesAndAMarkedOne() throws Exception {
        try (JournalMessageStore store = StoreHarness.open(StoreHarness.config(data), new Recovered())) {
            for (int i = 1; i <= 9; i++) {
                StoreHarness.put(store, Message.of("Q", i, "message " + i));
            }
            StoreHarness.put(store, Message.of("Q", 10, MARKER));
        }
    }

    private void recoverTheFirstNineAndKeepWorking() throws Exception {
        ServerConfig config = StoreHarness.config(data);
        Recovered recovered = new Recovered();
        try (JournalMessageStore store = StoreHarness.open(config, recovered)) {
            assertEquals(9, recovered.messages.size(), recovered.messages.toString());
            assertEquals("Q#9=message 9", recovered.messages.get(8));
            List<String> damage = store.recoveryDamage();
            assertEquals(1, damage.size(), "the damage is reported: " + damage);
            assertTrue(damage.get(0).contains("checksum"), damage.get(0));
            StoreHarness.put(store, Message.of("Q", 11, "after the damage"));
        }
        Recovered again = new Recovered();
        try (JournalMessageStore store = StoreHarness.open(config, again)) {
            assertEquals(10, again.messages.size(), again.messages.toString());
            assertEquals("Q#11=after the damage", again.messages.get(9));
            assertEquals(1, store.recoveryDamage().size(), "the old damage is still there, and still only reported");
        }
    }

    private interface Damage {
        void apply(MappedByteBuffer file, int markerPosition) throws IOException;
    }

    /** Finds the marked record in the newest segment's data file and damages it there. */
    private void damage(Damage damage) throws Exception {
        Path file;
        try (Stream<Path> files = Files.walk(data.resolve("journal"))) {
            file = files.filter(p -> p.toString().endsWith(".cq4")).max(Path::compareTo).orElseThrow();
        }
        byte[] marker = MARKER.getBytes(StandardCharsets.UTF_8);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw");
             FileChannel channel = raf.getChannel()) {
            MappedByteBuffer map = channel.map(FileChannel.MapMode.READ_WRITE, 0, Math.min(channel.size(), 16 << 20));
            int at = indexOf(map, marker);
            assertTrue(at > 0, "marker not found in " + file);
            damage.apply(map, at);
            map.force();
        }
    }

    private static int indexOf(MappedByteBuffer map, byte[] marker) {
        outer:
        for (int i = 0; i + marker.length <= map.limit(); i++) {
            for (int j = 0; j < marker.length; j++) {
                if (map.get(i + j) != marker[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
