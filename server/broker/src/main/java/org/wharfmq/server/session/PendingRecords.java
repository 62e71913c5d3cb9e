package org.wharfmq.server.session;

import java.util.ArrayList;
import java.util.List;

/**
 * Journal records a session started and the journal has not yet made durable (its answered ACKs' removals, and the
 * syncs it asked for to cover its unanswered ones), and the tasks that wait for all of them: a close answered only once its acknowledgements would survive a crash. Records complete in
 * the order they were written, so "none pending" is "every one started before is durable". Owned by the session's
 * event loop; allocates only for a waiting task.
 */
final class PendingRecords {

    private int pending;
    private List<Runnable> waiting;

    /** A record was handed to the journal. */
    void started() {
        pending++;
    }

    /** One of them is durable (or failed: nothing more will come of it). */
    void recorded() {
        if (--pending == 0 && waiting != null) {
            List<Runnable> ready = waiting;
            waiting = null;
            ready.forEach(Runnable::run);
        }
    }

    /** Runs {@code then} once none is pending: at once if none is. */
    void whenRecorded(Runnable then) {
        if (pending == 0) {
            then.run();
            return;
        }
        if (waiting == null) {
            waiting = new ArrayList<>(1);
        }
        waiting.add(then);
    }
}
