package org.wharfmq.server.store;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * The exclusive lock a queue manager holds on its data directory ({@value #FILE_NAME}) for as long as it runs, so
 * that no two ever write one journal. The holder writes who it is into the file (process, host, queue manager, since
 * when), so another one turned away, or waiting, can say whom it is waiting for.
 *
 * <p>A queue manager started as a <em>standby</em> ({@code standby: true}) that finds the lock held waits for it:
 * the operating system releases it when the holder stops or dies (even by kill -9 or a crash of its host, on a file
 * system whose locks do that: docs/resilience.md, "Standby"), and the standby then opens the journal, recovers it as
 * after any crash, and starts. Nothing else is shared or signalled: the lock alone decides who is active.
 *
 * <p>The lock is a POSIX record lock ({@link FileChannel#lock()}), held by the process: two queue managers in one JVM
 * cannot be active and standby of one directory (the second is refused).
 */
public final class DataDirectoryLock implements AutoCloseable {

    /** The lock file's name in the data directory. */
    public static final String FILE_NAME = "wharf.lock";

    private static final System.Logger LOG = System.getLogger(DataDirectoryLock.class.getName());

    private final FileChannel channel;
    private final FileLock lock;

    private DataDirectoryLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock of {@code data} for queue manager {@code name}. When another process holds it, a standby waits
     * for it (this call blocks until then); otherwise the start is refused.
     *
     * @throws IllegalStateException when the directory is in use and this is not a standby, or the holder is this JVM
     * @throws IOException           when the lock file cannot be opened or written, or the wait is interrupted
     */
    public static DataDirectoryLock acquire(Path data, String name, boolean standby) throws IOException {
        FileChannel channel = FileChannel.open(data.resolve(FILE_NAME), StandardOpenOption.CREATE,
                StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                throw new IllegalStateException("Data directory " + data + " is in use by another Wharf queue manager "
                        + "in this JVM (" + holder(channel) + "): give each queue manager its own (setting dataDirectory). "
                        + "A standby must run in a process of its own.");
            }
            if (lock == null) {
                String holder = holder(channel);
                if (!standby) {
                    throw new IllegalStateException("Data directory " + data + " is in use by another Wharf queue "
                            + "manager (" + holder + "). Give each queue manager its own (setting dataDirectory, or "
                            + "--data), or start this one as its standby (setting standby: true, or --standby) to "
                            + "take over when that one stops.");
                }
                LOG.log(System.Logger.Level.INFO, "Data directory " + data + " is in use by " + holder
                        + ": queue manager " + name + " waits as its standby and starts when that one stops or dies.");
                long since = System.nanoTime();
                lock = channel.lock();
                LOG.log(System.Logger.Level.INFO, String.format(java.util.Locale.ROOT, "Queue manager %s takes over "
                        + "data directory %s after waiting %.1f s as the standby of %s.", name, data,
                        (System.nanoTime() - since) / 1e9, holder));
            }
            writeHolder(channel, name);
            return new DataDirectoryLock(channel, lock);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Who holds the lock, as its holder wrote it; a holder that wrote nothing is "an unknown process". */
    private static String holder(FileChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(512);
        int n = channel.read(buffer, 0);
        String text = n <= 0 ? "" : new String(buffer.array(), 0, n, StandardCharsets.UTF_8).trim();
        return text.isEmpty() ? "an unknown process" : text;
    }

    private static void writeHolder(FileChannel channel, String name) throws IOException {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "an unknown host";
        }
        String text = "queue manager " + name + ", process " + ProcessHandle.current().pid() + " on " + host
                + ", since " + Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime()) + "\n";
        channel.truncate(0);
        channel.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), 0);
        channel.force(false);
    }

    /** Releases the lock: a waiting standby takes over. Idempotent. */
    @Override
    public void close() throws IOException {
        if (channel.isOpen()) {
            lock.release();
            channel.close();
        }
    }
}
