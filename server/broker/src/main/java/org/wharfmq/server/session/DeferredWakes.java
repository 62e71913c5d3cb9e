package org.wharfmq.server.session;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.AbstractEventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.wharfmq.server.Configuration;

import java.util.Arrays;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The wakes of event loops that one thread of the queue manager's own (the reader of a flow with a node that may block,
 * which takes its input and puts its output inside the queue manager) owes, issued together rather than one per message. A put of the reader's that
 * delivers to a session of another connection (a reply to a requester) queues that session's DELIVER frames as a task
 * of its connection's loop ({@link DeliveryWriter}), and its settlement of what it consumed is a task of its input
 * session's loop ({@link InProcessTakes#settle}); each such task woke its loop when the loop slept, an {@code eventfd}
 * write by the reader and a thread the scheduler then runs beside it, or in its place: about one wake per message,
 * where the reader is the flow's one busy thread (F-DB-UPDATE, docs/performance-log.md, sessions 34 to 38). A thread
 * that defers its wakes owes these tasks instead ({@link #owe}) and queues them together ({@link #issue}), so that a
 * loop asleep is woken once for all of its tasks:
 * <ul>
 *   <li>once {@link Configuration#DEFERRED_WAKES_MAX} tasks are owed (a reply waits for at most that many more);</li>
 *   <li>before the thread waits for anything: its input ({@code InProcessConsumer}), producer credit or the journal
 *       ({@link InProcessProducer}), and as it stops deferring ({@link #close});</li>
 *   <li>and by the {@link WakeBound} thread once they have been owed for
 *       {@link Configuration#DEFERRED_WAKE_BOUND_MICROS}: the thread may block where it cannot say so first (a
 *       database call waiting for a row lock, an HTTP request, a file, another JMS provider), or work long in a node,
 *       and what it put before must not wait for that.</li>
 * </ul>
 * So no reply waits longer than the bound, however the flow's invocation after it goes. A session's drain that a
 * deferring thread owes holds nobody else's deliveries: a thread that does not defer queues its own
 * ({@link DeliveryWriter#flush}).
 *
 * <p><b>Threading.</b> The owner owes and issues; {@link WakeBound} reads {@link #owedSince} and, once the tasks have
 * been owed too long, takes them and queues them itself. The tasks are handed over under a lock that only those two
 * take, and queued outside it. Nothing is allocated per task.
 */
public final class DeferredWakes implements AutoCloseable {

    private static final FastThreadLocal<DeferredWakes> OF_THREAD = new FastThreadLocal<>();
    /** What wakes a loop for the tasks queued on it without a wake, when its last task is due no more. */
    private static final Runnable WAKE = () -> {
    };

    /** A task owed to its loop and not queued there yet: a session's drain, an input's settlement. */
    interface Pending {
        /** The loop the task runs on. */
        EventLoop loop();

        /** The task. */
        Runnable task();

        /** Whether the task is still due (a drain another thread queued meanwhile needs no second one). Any thread. */
        boolean pending();
    }

    private final Thread owner = Thread.currentThread();
    private final int max = Configuration.DEFERRED_WAKES_MAX;
    /** Guards {@link #owed} and {@link #count}: the owner's, and {@link WakeBound}'s once they are owed too long. */
    private final ReentrantLock lock = new ReentrantLock();
    /** The tasks owed, in {@code [0, count)}. */
    private final Pending[] owed = new Pending[max];
    private int count;
    /** The tasks one {@link #issue} of the owner's queues, taken out of {@link #owed} under the lock; the owner's. */
    private final Pending[] issuing = new Pending[max];
    /** When the oldest owed task was owed ({@code System.nanoTime}, never 0); 0: nothing owed. */
    private volatile long owedSince;

    private DeferredWakes() {
    }

    /**
     * The calling thread defers its wakes from now until {@link #close}: a thread of the queue manager's own that waits
     * for its input and for its puts only through the hooks that issue the owed wakes first ({@code InProcessConsumer},
     * {@link InProcessProducer}); never an event loop. Null, and nothing deferred, for a thread that is not a
     * {@link FastThreadLocalThread} (the flow host's readers are) or that defers its wakes already (whoever began that
     * closes it).
     */
    public static DeferredWakes begin() {
        Thread thread = Thread.currentThread();
        if (!(thread instanceof FastThreadLocalThread) || OF_THREAD.isSet()) {
            return null;
        }
        DeferredWakes wakes = new DeferredWakes();
        OF_THREAD.set(wakes);
        WakeBound.INSTANCE.watch(wakes);
        return wakes;
    }

    /** The calling thread's deferred wakes, null when it does not defer them. Any thread. */
    static DeferredWakes ofThisThread() {
        return Thread.currentThread() instanceof FastThreadLocalThread ? OF_THREAD.getIfExists() : null;
    }

    /** Issues the calling thread's owed wakes, if it defers them: it is about to wait. */
    public static void issueOwed() {
        DeferredWakes wakes = ofThisThread();
        if (wakes != null) {
            wakes.issue();
        }
    }

    /** {@code work} is owed to its loop: queued there at the next {@link #issue}; the owner's. */
    void owe(Pending work) {
        boolean full;
        lock.lock();
        try {
            if (count == 0) {
                long now = System.nanoTime();
                owedSince = now == 0 ? 1 : now;
            }
            owed[count++] = work;
            full = count == max;
        } finally {
            lock.unlock();
        }
        if (full) {
            issue();
        } else {
            WakeBound.INSTANCE.owing(); // after owedSince: a bound's thread parking since looks again
        }
    }

    /** Queues every task owed on its loop (a loop asleep is woken once for all of its tasks); the owner's. */
    public void issue() {
        queue(issuing, take(issuing));
    }

    /**
     * Takes the owed tasks into {@code into} and returns how many; under the lock, so the owner and
     * {@link WakeBound} never queue the same tasks.
     */
    int take(Pending[] into) {
        lock.lock();
        try {
            int n = count;
            System.arraycopy(owed, 0, into, 0, n);
            Arrays.fill(owed, 0, n, null);
            count = 0;
            owedSince = 0;
            return n;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Queues the first {@code n} tasks of {@code tasks} that are still due on their loops, and forgets them. A loop is
     * woken once for all of its tasks: each but its last is queued without a wake ({@code lazyExecute}), its last with
     * one, which wakes the loop if it sleeps (the loop then runs them all, in order); should that last one be due no
     * more (another thread queued that drain meanwhile), a task that does nothing wakes the loop instead. Queuing each
     * with a wake could wake a loop once per task: woken by the first, it runs it and sleeps again before the next
     * comes, and this thread writes its {@code eventfd} again (docs/performance-log.md, session 40).
     */
    static void queue(Pending[] tasks, int n) {
        for (int i = 0; i < n; i++) {
            Pending work = tasks[i];
            EventLoop loop = work.loop();
            try {
                if (runsOn(loop, tasks, i + 1, n) && loop instanceof AbstractEventExecutor lazy) {
                    if (work.pending()) {
                        lazy.lazyExecute(work.task()); // woken by the loop's last task, below
                    }
                } else if (work.pending()) {
                    loop.execute(work.task());
                } else if (runsOn(loop, tasks, 0, i)) {
                    loop.execute(WAKE); // for its tasks queued above without a wake
                }
            } catch (RejectedExecutionException e) {
                // the loop has shut down, with the queue manager: nothing runs there any more
            }
        }
        Arrays.fill(tasks, 0, n, null);
    }

    /** Whether a task of {@code tasks} in {@code [from, to)} runs on {@code loop}. */
    private static boolean runsOn(EventLoop loop, Pending[] tasks, int from, int to) {
        for (int j = from; j < to; j++) {
            if (tasks[j].loop() == loop) {
                return true;
            }
        }
        return false;
    }

    /** When the oldest owed task was owed, 0 when none is. Any thread. */
    long owedSince() {
        return owedSince;
    }

    /** Issues what is owed and stops deferring: the owner's. */
    @Override
    public void close() {
        assert Thread.currentThread() == owner : "deferred wakes closed by " + Thread.currentThread() + ", not "
                + owner;
        issue();
        if (OF_THREAD.getIfExists() == this) {
            OF_THREAD.remove();
        }
        WakeBound.INSTANCE.unwatch(this);
    }
}
