package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.Frame;

import java.util.ArrayDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The thread that completes one session's asynchronous sends ({@link CoreSender.Completion}): it waits for their
 * answers in send order and calls their completions in that order, never on the reading thread nor on the sending
 * thread, so a completion may take its time (or send) without holding up the connection. Started by the session's
 * first asynchronous send; ends when the session closes, after the last completion returned.
 */
final class SendCompletions extends Thread {
    private static final System.Logger LOG = System.getLogger(SendCompletions.class.getName());

    private final CoreSender sender;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<CoreSender.Completion> queue = new ArrayDeque<>();
    /** Sends added whose completion has not yet returned. */
    private int outstanding;
    private boolean shutdown;

    SendCompletions(CoreSender sender, String name) {
        super(name);
        this.sender = sender;
        setDaemon(true);
    }

    CoreSender sender() {
        return sender;
    }

    /** Queues a send before its frame is written, so its completion follows those of earlier sends. */
    void add(CoreSender.Completion completion) {
        lock.lock();
        try {
            queue.addLast(completion);
            outstanding++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Returns once every send added so far has completed and its completion returned (at once on this thread). */
    void awaitIdle() {
        if (Thread.currentThread() == this) {
            return;
        }
        lock.lock();
        try {
            while (outstanding > 0) {
                changed.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Lets the thread end once the queue is empty. */
    void shutdown() {
        lock.lock();
        try {
            shutdown = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void run() {
        while (true) {
            CoreSender.Completion next;
            lock.lock();
            try {
                while (queue.isEmpty() && !shutdown) {
                    changed.awaitUninterruptibly();
                }
                next = queue.pollFirst();
            } finally {
                lock.unlock();
            }
            if (next == null) {
                return;
            }
            try {
                ClientException failure = outcome(next.request);
                try {
                    next.completed(failure);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "A send's completion threw (" + getName() + ")", e);
                }
            } finally {
                lock.lock();
                try {
                    outstanding--;
                    changed.signalAll();
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /** Waits up to requestTimeout for the send's answer: null when the server has the message, else why not. */
    private ClientException outcome(PendingRequests.Request request) {
        CoreConnection connection = sender.connection();
        int timeout = connection.settings().requestTimeoutMillis();
        try {
            Frame.Error error = request.answer().get(timeout, TimeUnit.MILLISECONDS);
            return error == null ? null : ClientException.of(error);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof LinkLostException lost) {
                return new ClientException("The connection to Wharf was lost before the server answered this send, so"
                        + " it may or may not have been stored; the connection has been made again (or is being made)."
                        + " Send it again if it must arrive: a copy sent again has a new message id.", lost);
            }
            return e.getCause() instanceof ClientException failure ? failure
                    : new ClientException("SEND failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            connection.forgetRequest(request.id);
            return new ClientException("No answer from Wharf at " + request.on.address() + " to SEND within " + timeout
                    + " ms (requestTimeout)", null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ClientException("Interrupted while waiting for the answer to SEND", e);
        }
    }
}
