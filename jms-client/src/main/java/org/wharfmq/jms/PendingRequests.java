package org.wharfmq.jms;

import org.wharfmq.protocol.frame.Frame;

import javax.jms.JMSException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Requests of one connection that wait for the server's OK or ERROR. A request's future completes with null
 * for OK and with the ERROR frame otherwise (the waiting thread builds the exception, so its stack trace shows
 * the application's call), or exceptionally when the connection is lost.
 */
final class PendingRequests {
    private final ConcurrentHashMap<Integer, CompletableFuture<Frame.Error>> pending = new ConcurrentHashMap<>();
    private final AtomicInteger lastId = new AtomicInteger();
    private volatile JMSException failure;

    /** A fresh request id: positive, so never the fire-and-forget id 0. */
    int nextId() {
        while (true) {
            int id = lastId.incrementAndGet() & Integer.MAX_VALUE;
            if (id != 0) {
                return id;
            }
        }
    }

    /** Registers a request before it is written; fails at once if the connection is already gone. */
    CompletableFuture<Frame.Error> register(int id) {
        CompletableFuture<Frame.Error> future = new CompletableFuture<>();
        pending.put(id, future);
        JMSException failed = failure;
        if (failed != null && pending.remove(id, future)) {
            future.completeExceptionally(failed);
        }
        return future;
    }

    /**
     * Completes a request with the server's answer (on the IO thread).
     *
     * @param error null for OK
     * @return false when no request had that id
     */
    boolean answer(int id, Frame.Error error) {
        CompletableFuture<Frame.Error> future = pending.remove(id);
        if (future == null) {
            return false;
        }
        future.complete(error);
        return true;
    }

    /** Gives up on a request (its wait timed out). */
    void forget(int id) {
        pending.remove(id);
    }

    /** Fails every pending request, and every later one, with {@code cause}. */
    void failAll(JMSException cause) {
        failure = cause;
        for (Integer id : pending.keySet()) {
            CompletableFuture<Frame.Error> future = pending.remove(id);
            if (future != null) {
                future.completeExceptionally(cause);
            }
        }
    }
}
