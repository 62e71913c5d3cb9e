package org.wharfmq.perf.workload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/** The output lines of one launched process, kept so the runner can wait for a given line. */
final class OutputLines implements Consumer<String> {

    private final List<String> lines = new ArrayList<>();
    private final Consumer<String> echo;
    private boolean ended;

    OutputLines(Consumer<String> echo) {
        this.echo = echo;
    }

    @Override
    public synchronized void accept(String line) {
        lines.add(line);
        echo.accept(line);
        notifyAll();
    }

    /** No more lines will come. */
    synchronized void end() {
        ended = true;
        notifyAll();
    }

    synchronized String await(String prefix, Duration timeout, String who) throws TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int next = 0;
        while (true) {
            for (; next < lines.size(); next++) {
                if (lines.get(next).startsWith(prefix)) {
                    return lines.get(next);
                }
            }
            long left = deadline - System.nanoTime();
            if (ended) {
                throw new TimeoutException(who + " ended without printing '" + prefix + "'; its last lines: " + tail());
            }
            if (left <= 0) {
                throw new TimeoutException(who + " did not print '" + prefix + "' within " + timeout.toSeconds() + " s; its last lines: " + tail());
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }

    /** The last line so far starting with {@code prefix}, or null. */
    synchronized String latest(String prefix) {
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).startsWith(prefix)) {
                return lines.get(i);
            }
        }
        return null;
    }

    /**
     * The last {@value #TAIL_LINES} lines that say something, for a failure's message: a stack trace's frames are left
     * out, so that a process that died of an exception is told by the exception and its causes, not by the frames under
     * them (a server that ended at its start under load said only "at ...CoreConnection.connect", eight frames deep).
     */
    synchronized String tail() {
        List<String> told = new ArrayList<>();
        for (int i = lines.size() - 1; i >= 0 && told.size() < TAIL_LINES; i--) {
            String line = lines.get(i).strip();
            if (!line.startsWith("at ") && !(line.startsWith("... ") && line.endsWith(" more"))) {
                told.add(0, lines.get(i));
            }
        }
        return String.join(" | ", told);
    }

    /** Lines a failure's message gives of a process's output. */
    static final int TAIL_LINES = 8;
}
