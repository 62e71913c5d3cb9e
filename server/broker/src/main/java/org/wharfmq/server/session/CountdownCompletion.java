package org.wharfmq.server.session;

import org.wharfmq.server.store.StoreCompletion;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Completes {@code then} once {@code count} store records are durable, with the first failure if any: a persistent
 * publication is answered once every durable subscription's copy is synced. Completions may arrive on any thread.
 */
final class CountdownCompletion implements StoreCompletion {

    private final AtomicInteger remaining;
    private final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    private final StoreCompletion then;

    CountdownCompletion(int count, StoreCompletion then) {
        this.remaining = new AtomicInteger(count);
        this.then = then;
    }

    @Override
    public void completed(Throwable failure) {
        if (failure != null) {
            firstFailure.compareAndSet(null, failure);
        }
        if (remaining.decrementAndGet() == 0) {
            then.completed(firstFailure.get());
        }
    }
}
