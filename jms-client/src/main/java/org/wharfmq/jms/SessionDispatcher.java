package org.wharfmq.jms;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The thread that calls one session's MessageListeners, serially and in delivery order. Created when the
 * session's first listener is set; ends when the session closes or the connection is lost. Holding
 * {@link #inProgress} while a listener runs lets {@code Connection.stop} and {@code close} wait for it.
 */
final class SessionDispatcher extends Thread {
    private final WharfSession session;
    /** Held while a listener's onMessage runs. */
    final ReentrantLock inProgress = new ReentrantLock();

    SessionDispatcher(WharfSession session, String name) {
        super(name);
        this.session = session;
        setDaemon(true);
    }

    WharfSession session() {
        return session;
    }

    @Override
    public void run() {
        session.dispatchLoop(this);
    }
}
