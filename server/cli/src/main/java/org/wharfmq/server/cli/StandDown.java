package org.wharfmq.server.cli;

import org.wharfmq.server.StepTimes;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The steps of one member's way back from a fence to following as a replica ({@link MemberRun}), each timed from the
 * fence: {@link #toString} names them ("clients disconnected 12 ms, queue manager closed 340 ms, ..."), for the rejoin
 * line. Every step's wait is bounded, together far below {@link #STUCK_AFTER}; should the rejoin not be done by then,
 * it prints, once, on stderr, the step it is in and the process's threads: a member that cannot rejoin says where
 * it stands rather than wait silently.
 *
 * <p>Threads: the member's loop calls {@link #done} and {@link #end}; the check runs on the common pool's delayed
 * executor.
 */
final class StandDown {

    /** How long after the fence the rejoin may take before the member prints where it stands, with its threads. */
    static final Duration STUCK_AFTER = Duration.ofSeconds(60);
    /** The line a stand-down prints when it is stuck: the tests watch for it. */
    static final String STUCK = "has not rejoined as a replica within";

    private final StepTimes steps = new StepTimes();
    private volatile String current = "disconnecting its clients";
    private volatile boolean ended;

    StandDown(String queueManager, String member) {
        CompletableFuture.delayedExecutor(STUCK_AFTER.toMillis(), TimeUnit.MILLISECONDS).execute(() -> {
            if (!ended) {
                System.err.println("wharf: queue manager " + queueManager + ": member " + member + " " + STUCK + " "
                        + STUCK_AFTER + " of its fence: after " + this + ", it is " + current + ". Its threads:\n"
                        + threads());
                System.err.flush();
            }
        });
    }

    /** Step {@code what} is done: noted with the time since the fence. */
    void done(String what) {
        steps.done(what);
        current = "past " + what;
    }

    /** The member follows as a replica again. */
    void end() {
        ended = true;
    }

    @Override
    public String toString() {
        return steps.toString();
    }

    private static String threads() {
        StringBuilder dump = new StringBuilder();
        for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            dump.append('"').append(thread.getThreadName()).append("\" ").append(thread.getThreadState());
            if (thread.getLockName() != null) {
                dump.append(" on ").append(thread.getLockName());
            }
            if (thread.getLockOwnerName() != null) {
                dump.append(" owned by \"").append(thread.getLockOwnerName()).append('"');
            }
            dump.append('\n');
            for (StackTraceElement frame : thread.getStackTrace()) {
                dump.append("\tat ").append(frame).append('\n');
            }
        }
        return dump.toString();
    }
}
