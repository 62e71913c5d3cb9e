package org.wharfmq.server.store;

import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.transport.LeakDetection;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * A journal being opened ({@link JournalMessageStore#open(ServerConfig)}) on a thread of its own,
 * {@code wharf-journal-open}, while the thread that starts the server does what needs no store (its plugins made and
 * prepared); {@link #take} then waits for the store.
 *
 * <p>Why: opening even an empty journal is half a second of CPU on the starting thread, nearly all of it Chronicle
 * Queue's own start (its classes, its native POSIX binding, the first queue built), and a start on a loaded machine
 * gets a small share of a core: an empty journal took 16 to 59 s to open at load 50-66 (docs/performance-log.md,
 * "Session 33: the journal's open at a server's start"). Done beside the plugins' preparation, each gets its share.
 *
 * <p>Threads: made, taken and closed by the starting thread; the store is written once by the opening thread and read
 * by the starting one after the future completes.
 */
public final class JournalOpening implements AutoCloseable {

    private final CompletableFuture<JournalMessageStore> store = new CompletableFuture<>();
    /** Whether {@link #take} handed the store over: then the taker closes it, not {@link #close}. */
    private boolean taken;

    private JournalOpening(ServerConfig config) {
        Thread thread = new Thread(() -> {
            try {
                store.complete(JournalMessageStore.open(config));
            } catch (Throwable e) { // handed to take(), which throws it on the starting thread
                store.completeExceptionally(e);
            }
        }, "wharf-journal-open");
        thread.setDaemon(true); // a standby waits here for the lock: a stop must not wait for it
        thread.start();
    }

    /**
     * Starts opening {@code config}'s journal, as {@link JournalMessageStore#open(ServerConfig)} does, and returns. The
     * queue manager's start begins here, before {@code WharfServer}'s: Netty's leak detector is set first (the
     * buffers of the messages recovered are among the first the server takes).
     */
    public static JournalOpening begin(ServerConfig config) {
        LeakDetection.applyDefault();
        return new JournalOpening(config);
    }

    /**
     * Waits for the open and hands the store over: the caller closes it from now on.
     *
     * @throws IOException           as {@link JournalMessageStore#open(ServerConfig)} (the same exception)
     * @throws IllegalStateException as {@link JournalMessageStore#open(ServerConfig)}: another queue manager uses the
     *                               data directory, the JVM lacks Chronicle's flags
     * @throws InterruptedException  when the wait is interrupted (the store, once open, is closed by {@link #close})
     */
    public JournalMessageStore take() throws IOException, InterruptedException {
        try {
            JournalMessageStore opened = store.get();
            taken = true;
            return opened;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException("Opening the journal failed: " + cause, cause);
        }
    }

    /** The open's outcome, for tests to wait for it; the store is {@link #take}'s to hand over. */
    CompletableFuture<JournalMessageStore> opened() {
        return store;
    }

    /**
     * For a start that failed before {@link #take}: closes the store once it is open (its data directory lock
     * released), without waiting for an open that has not finished (a standby still waiting for the lock). No-op once
     * taken.
     */
    @Override
    public void close() {
        if (!taken) {
            taken = true;
            store.thenAccept(JournalMessageStore::close);
        }
    }
}
