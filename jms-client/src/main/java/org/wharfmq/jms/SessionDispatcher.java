package org.wharfmq.jms;

import org.wharfmq.client.core.CoreConnection;
import org.wharfmq.protocol.frame.Frame;

import javax.jms.MessageListener;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The MessageListener side of one session: which of its consumers' buffered deliveries the listener thread runs
 * next (one entry per delivery, in arrival order across the session's consumers), and that thread, which calls the
 * listeners serially, as JMS requires. The thread starts with the session's first listener and ends when the
 * session closes or the connection is lost. Holding {@code inProgress} while a listener runs lets
 * {@code Connection.stop} and {@code close} wait for it.
 *
 * <p>Lock order: this dispatcher's lock, then a consumer's monitor (to take its delivery); a consumer never calls
 * in here while holding its monitor.
 */
final class SessionDispatcher {
    private final WharfSession session;
    /** The core connection: whether it is started or lost, and its address for the thread's name. */
    private final CoreConnection connection;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition dispatchable = lock.newCondition();
    /** One entry per buffered delivery of a consumer with a listener, in arrival order across consumers. */
    private final ArrayDeque<ClientConsumer> queue = new ArrayDeque<>();
    /** Held while a listener's onMessage runs. */
    private final ReentrantLock inProgress = new ReentrantLock();
    private volatile ListenerThread thread;
    private volatile boolean closed;

    SessionDispatcher(WharfSession session) {
        this.session = session;
        this.connection = session.connection().core();
    }

    /** The thread that runs one session's MessageListeners. */
    static final class ListenerThread extends Thread {
        private final SessionDispatcher dispatcher;

        private ListenerThread(SessionDispatcher dispatcher, String name) {
            super(name);
            this.dispatcher = dispatcher;
            setDaemon(true);
        }

        WharfSession session() {
            return dispatcher.session;
        }

        @Override
        public void run() {
            dispatcher.dispatchLoop();
        }
    }

    /** Starts the listener thread, once: a consumer of the session has a listener. */
    synchronized void start() {
        if (thread == null) {
            ListenerThread t = new ListenerThread(this, "wharf-session-" + session.id() + "-" + connection.current().address());
            thread = t;
            t.start();
        }
    }

    /** {@code count} more deliveries of {@code consumer} are buffered for its listener. */
    void ready(ClientConsumer consumer, int count) {
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

    /** Forgets every entry: a rollback emptied the buffers. */
    void clear() {
        lock.lock();
        try {
            queue.clear();
        } finally {
            lock.unlock();
        }
    }

    /** Wakes the listener thread to look again: the connection started, or the session closes or is lost. */
    void wake() {
        lock.lock();
        try {
            dispatchable.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Lets the listener thread end (the session closes); {@link #wake} it afterwards. */
    void close() {
        closed = true;
    }

    /** The listener thread's loop: waits for a delivery of a consumer with a listener and runs it. */
    private void dispatchLoop() {
        while (true) {
            ClientConsumer consumer;
            MessageListener listener;
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
                    listener = consumer.listener();
                    deliver = consumer.takeForListener(listener);
                    if (deliver != null) {
                        // taken under the lock, so stop() cannot slip between the started check and onMessage
                        inProgress.lock();
                        break;
                    }
                }
            } finally {
                lock.unlock();
            }
            try {
                consumer.dispatch(listener, deliver);
            } finally {
                inProgress.unlock();
            }
        }
    }

    /** True on this session's listener thread. */
    boolean isListenerThread() {
        Thread t = thread;
        return t != null && t == Thread.currentThread();
    }

    /** Returns once no listener of this session is running (unless called by that listener). */
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
