package org.wharfmq.server;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What one logger writes while a test runs ({@code System.Logger} goes to java.util.logging here): each record as
 * {@code LEVEL message}. Closing it stops the capture.
 */
public final class LogCapture implements AutoCloseable {

    private final Logger logger;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            lines.add(r.getLevel() + " " + r.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private LogCapture(String loggerName) {
        this.logger = Logger.getLogger(loggerName);
        logger.addHandler(handler);
    }

    /** Starts capturing what the logger named {@code loggerName} writes. */
    public static LogCapture of(String loggerName) {
        return new LogCapture(loggerName);
    }

    /** The records so far, in order, each {@code LEVEL message}. */
    public List<String> lines() {
        return List.copyOf(lines);
    }

    /** The messages so far, without their levels. */
    public List<String> messages() {
        return lines.stream().map(l -> l.substring(l.indexOf(' ') + 1)).toList();
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
    }
}
