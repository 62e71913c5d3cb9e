package org.wharfmq.server.it;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The messages a logger (java.util.logging, where System.Logger writes) logs while this is open, for a test to wait for
 * the one it expects: what a component says when it can only say it in its log (a retry's reason).
 */
public final class LogMessages extends Handler implements AutoCloseable {

    private final Logger logger;
    private final BlockingQueue<String> messages = new LinkedBlockingQueue<>();

    private LogMessages(String loggerName) {
        this.logger = Logger.getLogger(loggerName);
        logger.addHandler(this);
    }

    /** Starts collecting what logger {@code loggerName} logs, until {@link #close}. */
    public static LogMessages of(String loggerName) {
        return new LogMessages(loggerName);
    }

    /** The next message logged, waiting up to {@code millis}; null when none came. */
    public String poll(long millis) throws InterruptedException {
        return messages.poll(millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void publish(LogRecord record) {
        messages.add(record.getMessage());
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
