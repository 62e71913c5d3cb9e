package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.Frame;

import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link MessageHandler} side of one {@link CoreSession}: which of its consumers' buffered deliveries the dispatch
 * thread runs next (one entry per delivery, in arrival order across the session's consumers), and that thread, which
 * calls the handlers one at a time and only while the connection is started. The thread starts with the session's
 * first handler and ends when the session closes or the connection is lost. Holding {@code inProgress} while a
 * handler runs lets the connection's stop and the session's close wait for it ({@link #awaitIdle}).
 *
 * <p>Owned by its session; the queue is guarded by {@code lock}. Lock order: this dispatcher's lock, then a consumer's
 * monitor (to take its delivery); a consumer never calls in here while holding its monitor.
 */
final class SessionDispatcher {
    private final CoreSession session;
    private final CoreConnection connection;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition dispatchable = lock.newCondition();
    /** One entry per buffered delivery of a consumer with a handler, in arrival order across consumers. */
    private final ArrayDeque<CoreConsumer> queue = new ArrayDeque<>();
    /** Held while a handler runs. */
    private final ReentrantLock inProgress = new ReentrantLock();
    private volatile DispatchThread thread;
    private volatile boolean closed;

    SessionDispatcher(CoreSession session) {
        this.session = session;
        this.connection = session.connection();
    }

    /** The thread that runs one session's message handlers. */
    private static final class DispatchThread extends Thread {
        private final SessionDispatcher dispatcher;

        private DispatchThread(SessionDispatcher dispatcher, String name) {
            super(name);
            this.dispatcher = dispatcher;
            setDaemon(true);
        }

        @Override
        public void run() {
            dispatcher.dispatchLoop();
        }
    }

    /** The session whose dispatch thread the caller is, or null. */
    static CoreSession current() {
        return Thread.currentThread() instanceof DispatchThread t ? t.dispatcher.session : null;
    }

    /** Starts the dispatch thread, once: a consumer of the session has a handler. */
    synchronized void start() {
        if (thread == null) {
            DispatchThread t = new DispatchThread(this, "wharf-session-" + session.id() + "-"
                    + connection.current().address());
            thread = t;
            t.start();
        }
    }

    /** {@code count} more deliveries of {@code consumer} are buffered for its handler. */
    void ready(CoreConsumer consumer, int count) {
        if (count == 0) {
            return;
        }
        lock.lock();
        try {
            for (int i = 0; i < count; i++) {
                queue.addLast(consumer);
            }
            dispatchable.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Forgets every entry: a rollback or a lost link emptied the buffers. */
    void clear() {
        lock.lock();
        try {
            queue.clear();
        } finally {
            lock.unlock();
        }
    }

    /** Wakes the dispatch thread to look again: the connection started, or the session closes or is lost. */
    void wake() {
        lock.lock();
        try {
            dispatchable.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Lets the dispatch thread end (the session closes); {@link #wake} it afterwards. */
    void close() {
        closed = true;
    }

    /** The dispatch thread's loop: waits for a delivery of a consumer with a handler and runs it. */
    private void dispatchLoop() {
        while (true) {
            CoreConsumer consumer;
            CoreConsumer.Handling<?> handling;
            Frame.Deliver deliver;
            lock.lock();
            try {
                while (true) {
                    if (closed || connection.lostCause() != null) {
                        return;
                    }
                    consumer = connection.isStarted() ? queue.pollFirst() : null;
                    if (consumer == null) {
                        dispatchable.awaitUninterruptibly();
                        continue;
                    }
                    handling = consumer.handling();
                    deliver = handling == null || consumer.isClosed() ? null : consumer.poll();
                    if (deliver != null) {
                        // taken under the lock, so a stop cannot slip between the started check and the handler
                        inProgress.lock();
                        break;
                    }
                }
            } finally {
                lock.unlock();
            }
            try {
                consumer.dispatch(deliver, handling);
            } finally {
                inProgress.unlock();
            }
        }
    }

    /** True on this session's dispatch thread. */
    boolean isDispatchThread() {
        Thread t = thread;
        return t != null && t == Thread.currentThread();
    }

    /** Returns once no handler of this session is running (unless called by that handler). */
    void awaitIdle() {
        Thread t = thread;
        if (t == null || t == Thread.currentThread()) {
            return;
        }
        // passing the lock orders us after any dispatch that saw the connection started
        lock.lock();
        lock.unlock();
        inProgress.lock();
        inProgress.unlock();
    }
}
