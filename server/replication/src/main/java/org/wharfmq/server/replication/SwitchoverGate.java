package org.wharfmq.server.replication;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Holds the active member's journal batches while a switchover hands the leadership over. Ratis refuses appends
 * while it transfers the leadership (the leader's log must stand still until the chosen member has all of it), and a
 * batch refused fences this member: it would end even when the transfer then fails (the chosen member cannot catch
 * up in time) and it should stay active. So, while {@link #close closed}, the journal's batches wait here, in order;
 * the transfer starts once those already appended are committed ({@link #close}'s future); if it fails, the held
 * batches are appended as if nothing had happened, and if it succeeds each fails ({@link #open}): it is in no log,
 * and its clients go to the new active member.
 *
 * <p>Threads: the journal's writer calls {@link #pass}, one batch at a time; the switchover's thread calls
 * {@link #close} and {@link #open}. {@link #held} and the switch between held and passed are guarded by this
 * object's monitor; a batch passing while the gate is open takes no lock.
 */
final class SwitchoverGate {

    private record Held(ByteBuffer records, CompletableFuture<Object> done) {
    }

    private final Function<ByteBuffer, CompletionStage<?>> append;
    /** Batches appended and not yet committed or failed (and, for a moment, one deciding whether to wait). */
    private final AtomicInteger inFlight = new AtomicInteger();
    /** While closed: completes once no batch is in flight. Null while open. */
    private volatile CompletableFuture<Void> drained;
    /** Batches handed over while closed, in the journal's order. Guarded by this. */
    private final ArrayDeque<Held> held = new ArrayDeque<>();

    SwitchoverGate(Function<ByteBuffer, CompletionStage<?>> append) {
        this.append = append;
    }

    /** Appends {@code records} now, or, while closed, once the gate opens (or fails it then). */
    CompletionStage<?> pass(ByteBuffer records) {
        // counted before the gate is read, and the gate set before the count is read (both volatile): either this
        // batch sees the gate closed, or the switchover waits for it
        inFlight.incrementAndGet();
        if (drained != null) {
            synchronized (this) {
                if (drained != null) {
                    Held wait = new Held(records, new CompletableFuture<>());
                    held.add(wait);
                    left();
                    return wait.done;
                }
            }
        }
        return appendNow(records);
    }

    /** Holds the batches handed over from now on; the future completes once those appended before are committed. */
    CompletableFuture<Void> close() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (this) {
            if (drained != null) {
                throw new IllegalStateException("The switchover gate is closed already.");
            }
            drained = done;
        }
        if (inFlight.get() == 0) {
            done.complete(null);
        }
        return done;
    }

    /**
     * Opens the gate: the batches held are appended, in order, before any later one, or, with a {@code failure},
     * each fails with it.
     */
    synchronized void open(RuntimeException failure) {
        for (Held wait; (wait = held.poll()) != null; ) {
            if (failure != null) {
                wait.done.completeExceptionally(failure);
                continue;
            }
            Held forward = wait;
            inFlight.incrementAndGet();
            appendNow(wait.records).whenComplete((result, error) -> {
                if (error != null) {
                    forward.done.completeExceptionally(error);
                } else {
                    forward.done.complete(result);
                }
            });
        }
        drained = null;
    }

    /** How many batches wait for the gate to open. */
    synchronized int heldBatches() {
        return held.size();
    }

    private CompletionStage<?> appendNow(ByteBuffer records) {
        CompletionStage<?> appended;
        try {
            appended = append.apply(records);
        } catch (RuntimeException e) {
            left();
            throw e;
        }
        appended.whenComplete((result, error) -> left());
        return appended;
    }

    private void left() {
        if (inFlight.decrementAndGet() == 0) {
            CompletableFuture<Void> waiting = drained;
            if (waiting != null) {
                waiting.complete(null);
            }
        }
    }
}
