package org.wharfmq.server.store;

import org.wharfmq.server.Configuration;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A completion an administrator's change waits for before it answers (a queue's messages removed, moved or copied):
 * the answer then promises what it says is durable. Counts down once per record it is handed to; only for threads
 * that may block (never an event loop, never the journal's).
 */
public final class DurableWait {

    private final CountDownLatch pending;
    private volatile Throwable failure;

    /** Waits for {@code completions} calls of {@link #completion()}'s completion. */
    public DurableWait(int completions) {
        this.pending = new CountDownLatch(completions);
    }

    /** The completion to hand to the store, once per record waited for. */
    public StoreCompletion completion() {
        return cause -> {
            if (cause != null && failure == null) {
                failure = cause;
            }
            pending.countDown();
        };
    }

    /**
     * Waits until every record is durable, at most {@link Configuration#ADMIN_STORE_WAIT_MILLIS}.
     *
     * @param what what the records do, for the error ("the removal of 3 messages from queue 'ORDERS'")
     * @throws IllegalStateException when the store failed or did not answer in time: the message says what may not
     *                               be durable and why
     */
    public void await(String what) {
        boolean done;
        try {
            done = pending.await(Configuration.ADMIN_STORE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for " + what + " to be recorded in the journal.",
                    e);
        }
        if (!done) {
            throw new IllegalStateException("The journal did not record " + what + " within "
                    + Configuration.ADMIN_STORE_WAIT_MILLIS + " ms: it is done in memory and may not survive a crash;"
                    + " see the server's log for what holds up the journal.");
        }
        if (failure != null) {
            throw new IllegalStateException("The journal could not record " + what + " (" + failure + "): it is done"
                    + " in memory and may not survive a crash; see the server's log.", failure);
        }
    }
}
