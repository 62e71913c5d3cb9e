package org.wharfmq.jms;

import org.wharfmq.client.core.LinkLostException;

import org.wharfmq.protocol.frame.Frame;

import javax.jms.CompletionListener;
import javax.jms.JMSException;
import javax.jms.Message;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The thread that calls one session's {@link CompletionListener}s (JMS 2.0 asynchronous send). Each such send
 * carries a request id; this thread waits for the answers in send order and calls the listeners in that order,
 * never on the IO thread nor on the sending thread. Created with the session's first asynchronous send; ends when
 * the session closes, after the last callback returned.
 */
final class CompletionDispatcher extends Thread {
    private static final System.Logger LOG = System.getLogger(CompletionDispatcher.class.getName());

    /**
     * One asynchronous send waiting for its answer and callback. Not a record: the Eclipse Transformer, which makes the
     * jakarta client from this one, leaves the types of a record's components in javax.jms (JakartaJarIT).
     */
    private static final class PendingSend {
        final Message message;
        final CompletionListener listener;
        final CompletableFuture<Frame.Error> answer;
        final int requestId;

        PendingSend(Message message, CompletionListener listener, CompletableFuture<Frame.Error> answer, int requestId) {
            this.message = message;
            this.listener = listener;
            this.answer = answer;
            this.requestId = requestId;
        }
    }

    private final WharfSession session;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<PendingSend> queue = new ArrayDeque<>();
    /** Sends added whose callback has not yet returned. */
    private int outstanding;
    private boolean shutdown;

    CompletionDispatcher(WharfSession session, String name) {
        super(name);
        this.session = session;
        setDaemon(true);
    }

    WharfSession session() {
        return session;
    }

    /** Queues a send before its frame is written, so its callback follows those of earlier sends. */
    void add(Message message, CompletionListener listener, CompletableFuture<Frame.Error> answer, int requestId) {
        lock.lock();
        try {
            queue.addLast(new PendingSend(message, listener, answer, requestId));
            outstanding++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Returns once every send added so far has completed and its callback returned. */
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
            PendingSend send;
            lock.lock();
            try {
                while (queue.isEmpty() && !shutdown) {
                    changed.awaitUninterruptibly();
                }
                send = queue.pollFirst();
            } finally {
                lock.unlock();
            }
            if (send == null) {
                return;
            }
            try {
                complete(send);
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

    private void complete(PendingSend send) {
        JMSException failure;
        try {
            Frame.Error error = send.answer.get(session.connection().url().requestTimeoutMillis(), TimeUnit.MILLISECONDS);
            failure = error == null ? null : JmsErrors.toException(error);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof LinkLostException) {
                failure = JmsErrors.wrap("The connection to Wharf was lost before the server answered this send, so it"
                        + " may or may not have been stored; the connection has been made again (or is being made)."
                        + " Send it again if it must arrive: a copy sent again has a new message id.", e.getCause());
            } else {
                failure = JmsErrors.fromCore(e.getCause(), "SEND");
            }
        } catch (TimeoutException e) {
            session.connection().forgetRequest(send.requestId);
            failure = new JMSException("No answer from Wharf at " + session.connection().current().address() + " to SEND within "
                    + session.connection().url().requestTimeoutMillis() + " ms (requestTimeout)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = new JMSException("Interrupted while waiting for the answer to SEND");
        }
        try {
            if (failure == null) {
                send.listener.onCompletion(send.message);
            } else {
                send.listener.onException(send.message, failure);
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "CompletionListener of session " + session.id() + " threw", e);
        }
    }
}
