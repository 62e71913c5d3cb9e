package org.wharfmq.server.session;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.AbstractEventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.wharfmq.server.Configuration;

import java.util.Arrays;
import java.util.concurrent.RejectedExecutionException;

/**
 * The wakes of event loops that one thread of the queue manager's own (a flow's reader, which takes its input and puts
 * its output inside the queue manager) owes, issued together rather than one per message. A put of the reader's that
 * delivers to a session of another connection (a reply to a requester) queues that session's DELIVER frames as a task
 * of its connection's loop ({@link DeliveryWriter}), and its settlement of what it consumed is a task of its input
 * session's loop ({@link InProcessTakes#settle}); each such task woke its loop when the loop slept, an {@code eventfd}
 * write by the reader and a thread the scheduler then runs beside it, or in its place: about one wake per message,
 * where the reader is the flow's one busy thread (F-DB-UPDATE, docs/performance-log.md, sessions 34 to 38). On a
 * thread that defers its wakes these tasks are queued without waking the loop ({@code lazyExecute}: a loop awake for
 * anything else runs them then) and the loop is owed a wake; the owed wakes are issued, one per loop however many tasks
 * it was owed for, none for a loop that has run them meanwhile:
 * <ul>
 *   <li>once {@link Configuration#DEFERRED_WAKES_MAX} tasks are owed (a reply waits for at most that many more);</li>
 *   <li>before the thread waits for anything: its input ({@code InProcessConsumer}), producer credit or the journal
 *       ({@link InProcessProducer}), and as it stops deferring ({@link #close});</li>
 *   <li>and by the {@link WakeBound} thread once they have been owed for
 *       {@link Configuration#DEFERRED_WAKE_BOUND_MICROS}: the thread may block where it cannot say so first (a
 *       database call waiting for a row lock, an HTTP request, a file, another JMS provider), or work long in a node,
 *       and what it put before must not wait for that.</li>
 * </ul>
 * So no reply waits longer than the bound for a wake, however the flow's invocation after it goes.
 *
 * <p><b>Threading.</b> The owed tasks are the owning thread's alone ({@link #owe}, {@link #issue}); {@link WakeBound}
 * reads {@link #owedSince} and wakes every loop this thread ever deferred a task to ({@link #wakeAll}), touching nothing
 * of the owner's: a wake is harmless to a loop with nothing to do. Nothing is allocated per task.
 */
public final class DeferredWakes implements AutoCloseable {

    private static final FastThreadLocal<DeferredWakes> OF_THREAD = new FastThreadLocal<>();
    private static final Runnable WAKE = () -> {
    };

    /** Work queued on a loop without waking it, still to run there: a session's drain, an input's settlement. */
    interface Pending {
        /** The loop the work waits on. */
        EventLoop loop();

        /** Whether the work has not started yet (a loop that ran it needs no wake). Any thread. */
        boolean pending();
    }

    private final Thread owner = Thread.currentThread();
    private final int max = Configuration.DEFERRED_WAKES_MAX;
    /** The work owed a wake, in {@code [0, count)}; the owner's. */
    private final Pending[] owed = new Pending[max];
    private int count;
    /** The loops one {@link #issue} wakes; the owner's. */
    private final EventLoop[] toWake = new EventLoop[max];
    /** When the oldest owed work was queued ({@code System.nanoTime}, never 0); 0: nothing owed. */
    private volatile long owedSince;
    /** Every loop this thread ever deferred work to, for {@link WakeBound}; grows (rarely), copied on write. */
    private volatile EventLoop[] everOwed = new EventLoop[0];
    /**
     * The {@link #owedSince} whose wakes {@link WakeBound} issued (written before it wakes the loops): work owed after
     * that starts a new {@link #owedSince}, which the bound then watches.
     */
    volatile long wokenFor;

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

    /** Issues the calling thread's owed wakes, if it defers them: it is about to wait. Any thread. */
    public static void issueOwed() {
        DeferredWakes wakes = ofThisThread();
        if (wakes != null) {
            wakes.issue();
        }
    }

    /** Queues {@code task} on {@code loop} without waking it; {@link #owe} it next. */
    static void queueWithoutWake(EventLoop loop, Runnable task) {
        if (loop instanceof AbstractEventExecutor executor) {
            executor.lazyExecute(task);
        } else {
            loop.execute(task);
        }
    }

    /**
     * {@code work}, queued on its loop without a wake, is owed one; the owner's. Its loop is among {@link #everOwed}
     * before {@link #wokenFor} is read: a bound's wake that this read does not see wakes that loop.
     */
    void owe(Pending work) {
        EventLoop loop = work.loop();
        EventLoop[] ever = everOwed;
        if (!contains(ever, ever.length, loop)) {
            EventLoop[] more = Arrays.copyOf(ever, ever.length + 1);
            more[ever.length] = loop;
            everOwed = more;
        }
        long since = owedSince;
        if (since == 0 || since == wokenFor) { // the bound has woken for what was owed before: a new start
            long now = System.nanoTime();
            owedSince = now == 0 ? 1 : now;
            WakeBound.INSTANCE.owing(); // after saying so: a bound's thread parking since looks again
        }
        owed[count++] = work;
        if (count == max) {
            issue();
        }
    }

    /** Wakes each loop owed a wake whose work has not run yet, once; the owner's. */
    public void issue() {
        if (count == 0) {
            return;
        }
        int loops = 0;
        for (int i = 0; i < count; i++) {
            Pending work = owed[i];
            owed[i] = null;
            EventLoop loop = work.loop();
            if (work.pending() && !contains(toWake, loops, loop)) {
                toWake[loops++] = loop;
            }
        }
        count = 0;
        owedSince = 0;
        for (int i = 0; i < loops; i++) {
            wake(toWake[i]);
            toWake[i] = null;
        }
    }

    /** Wakes {@code loop}, unless it has shut down (with the queue manager): then nothing runs there any more. */
    private static void wake(EventLoop loop) {
        try {
            loop.execute(WAKE);
        } catch (RejectedExecutionException e) {
            // the loop has shut down
        }
    }

    /** When the oldest owed work was queued, 0 when none is owed. Any thread. */
    long owedSince() {
        return owedSince;
    }

    /** Wakes every loop the owner ever deferred work to; {@link WakeBound}'s, while the owner may be blocked. */
    void wakeAll() {
        for (EventLoop loop : everOwed) {
            wake(loop);
        }
    }

    private static boolean contains(EventLoop[] loops, int n, EventLoop loop) {
        for (int i = 0; i < n; i++) {
            if (loops[i] == loop) {
                return true;
            }
        }
        return false;
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
