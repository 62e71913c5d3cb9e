package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.wharfmq.server.Configuration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server's paging: the one thread that writes paged messages to disk and reads them back, the directory their
 * files go to ({@code <dataDirectory>/paging/}), and the disk budget all queues share (docs/resilience.md, "Paging").
 *
 * <p>Queues hand work to the thread ({@link #execute}); each queue's {@link PageStore} and the two scratch buffers
 * here are touched by that thread alone, so paging takes no lock across I/O and no event loop ever reads or writes
 * a page file. The directory is emptied once, before the first queue pages: page files never outlive the process
 * that wrote them (non-persistent messages do not survive a restart; persistent ones are recovered from the
 * journal).
 */
public final class Pager implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Pager.class.getName());

    private final Path directory;
    private final MemoryBudget diskBudget;
    /** One thread at most, started with the first task and ended after a minute without any. */
    private final ThreadPoolExecutor thread = new ThreadPoolExecutor(0, 1, 60, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "wharf-paging");
                t.setDaemon(true);
                return t;
            });
    private final AtomicLong nextStore = new AtomicLong();
    /** Whether the directory was emptied in this run; paging thread only. */
    private boolean emptied;
    /** Bytes recovery has paged since it last waited for this thread to write them; recovery's thread only. */
    private long recoveredUnwrittenBytes;
    /** Records being written, and records read back; paging thread only, allocated with the first store. */
    private ByteBuf writeBuffer;
    private ByteBuf readBuffer;

    /**
     * @param directory  where page files go; emptied before the first is written
     * @param diskBudget the bytes all queues' page files may hold together
     */
    public Pager(Path directory, MemoryBudget diskBudget) {
        this.directory = directory;
        this.diskBudget = diskBudget;
    }

    /** The disk budget all queues' paged messages share (setting maxPageBytes). */
    public MemoryBudget diskBudget() {
        return diskBudget;
    }

    /** Runs {@code task} on the paging thread. */
    void execute(Runnable task) {
        thread.execute(() -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                LOG.log(System.Logger.Level.ERROR, "Paging failed: " + e.getMessage(), e);
            }
        });
    }

    /**
     * Recovery has paged a message of {@code bytes} (on any queue): whether it is to wait for this thread now
     * ({@link LocalQueue#restore}), having paged {@link Configuration#PAGE_READ_AHEAD_BYTES} since it last did, so
     * that reading the journal cannot run ahead of writing the page files by more than that. Recovery's thread only.
     */
    boolean recoveryPaged(long bytes) {
        recoveredUnwrittenBytes += bytes;
        if (recoveredUnwrittenBytes < Configuration.PAGE_READ_AHEAD_BYTES) {
            return false;
        }
        recoveredUnwrittenBytes = 0;
        return true;
    }

    /** A new, empty store for one queue's paged messages; on the paging thread. */
    PageStore newStore() {
        if (!emptied) {
            deleteTree(directory);
            emptied = true;
            writeBuffer = ByteBufAllocator.DEFAULT.directBuffer(64 * 1024);
            readBuffer = ByteBufAllocator.DEFAULT.directBuffer(64 * 1024);
        }
        return new PageStore(directory.resolve("queue-" + nextStore.incrementAndGet()));
    }

    /** The buffer records are written through; paging thread only, once a store exists. */
    ByteBuf writeBuffer() {
        return writeBuffer;
    }

    /** The buffer records are read back into; paging thread only, once a store exists. */
    ByteBuf readBuffer() {
        return readBuffer;
    }

    /** Stops the paging thread and deletes the page files: the server stops. */
    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (emptied) {
            writeBuffer.release();
            readBuffer.release();
            deleteTree(directory);
        }
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    Files.delete(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot empty the paging directory " + root + ": " + e.getMessage(), e);
        }
    }
}
