package org.wharfmq.perf.driver;

import java.io.IOException;

/**
 * How the runner stops a child process it started (a driver, the server, the relay): it closes the child's standard
 * input ({@code Launched.stop}), and the child finishes its run as if its time were up.
 */
public final class StdinClose {

    private StdinClose() {
    }

    /** Runs {@code action} once standard input ends (or breaks), on a daemon thread named {@code name}. */
    public static void then(Runnable action, String name) {
        Thread t = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // anything typed is ignored: only the end of the stream stops the run
                }
            } catch (IOException e) {
                // a broken stdin ends the run like a closed one
            }
            action.run();
        }, name);
        t.setDaemon(true);
        t.start();
    }
}
