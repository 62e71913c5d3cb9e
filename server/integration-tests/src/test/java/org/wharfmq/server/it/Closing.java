package org.wharfmq.server.it;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Closes test resources without letting a hung close hang the whole suite: a close that does not finish in time
 * fails the test that owns it, one that throws (the peer is already gone) is ignored.
 */
final class Closing {

    private static final long CLOSE_TIMEOUT_SECONDS = 10;

    private Closing() {
    }

    static void closeWithin(AutoCloseable resource, String what) {
        CompletableFuture<Void> closed = CompletableFuture.runAsync(() -> {
            try {
                resource.close();
            } catch (Exception ignored) {
                // already broken or closed: nothing left to release
            }
        }, task -> {
            Thread t = new Thread(task, "it-close-" + what);
            t.setDaemon(true);
            t.start();
        });
        try {
            closed.get(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(what + " close() did not return within " + CLOSE_TIMEOUT_SECONDS + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while closing " + what, e);
        } catch (ExecutionException e) {
            throw new AssertionError(what + " close() failed", e.getCause());
        }
    }
}
