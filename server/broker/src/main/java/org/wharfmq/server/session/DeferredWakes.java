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
 * which takes its input and puts its output inside the queue manager) owes, issued together rather than one per
 * message. A put of the reader's that delivers to a session of another connection (a reply to a requester) has that
 * session's DELIVER frames written by a task of its connection's loop ({@link DeliveryWriter}), and its settlement of
 * what it consumed is a task of its input session's loop ({@link InProcessTakes#settle}); queuing such a task woke its
 * loop when the loop slept, an {@code eventfd} write by the reader and a thread the scheduler then runs beside it, or
 * in its place: about one wake per message, where the reader is the flow's one busy thread (F-DB-UPDATE,
 * docs/performance-log.md, sessions 34 to 41). A thread that defers its wakes queues such a task at once without a
 * wake ({@link #owe}: Netty's {@code lazyExecute}), so that the loop runs it the next time it wakes for anything else
 * (a read of one of its connections: in a request/reply flow the requests keep coming), and owes only the wake, which
 * it issues together with its others ({@link #issue}), to the loops whose tasks have not run by then:
 * <ul>
 *   <li>once {@link Configuration#DEFERRED_WAKES_MAX} wakes are owed (a reply waits for at most that many more);</li>
 *   <li>before the thread waits for anything: its input ({@code InProcessConsumer}), producer credit or the journal
 *       ({@link InProcessProducer}), and as it stops deferring ({@link #close});</li>
 *   <li>and by the {@link WakeBound} thread once they have been owed for
 *       {@link Configuration#DEFERRED_WAKE_BOUND_MICROS}: the thread may block where it cannot say so first (a
 *       database call waiting for a row lock, an HTTP request, a file, another JMS provider), or work long in a node,
 *       and what it put before must not wait for that.</li>
 * </ul>
 * So no reply waits longer than the bound, however the flow's invocation after it goes, and a reply whose loop wakes
 * for another reason meanwhile goes then, with no wake of its own. A session's drain that a deferring thread owes the
 * wake of holds nobody else's deliveries: a thread that does not defer queues a drain of its own, with a wake
 * ({@link DeliveryWriter#flush}).
 *
 * <p><b>Threading.</b> The owner owes and issues; {@link WakeBound} reads {@link #owedSince} and, once the wakes have
 * been owed too long, takes them and issues them itself. The owed wakes are handed over under a lock that only those
 * two take, and issued outside it. Nothing is allocated per task.
 */
public final class DeferredWakes implements AutoCloseable {

    private static final FastThreadLocal<DeferredWakes> OF_THREAD = new FastThreadLocal<>();
    /** What wakes a loop for the tasks queued on it without a wake. */
    private static final Runnable WAKE = () -> {
    };

    /** A task queued on its loop without a wake, whose wake is owed: a session's drain, an input's settlement. */
    interface Pending {
        /** The loop the task runs on. */
        EventLoop loop();

        /** The task. */
        Runnable task();

        /**
         * Whether the task is still due: queued and not run yet, nor taken over by a task another thread queued with a
         * wake (then its loop needs no wake of this thread's). Any thread.
         */
        boolean pending();
    }

    private final Thread owner = Thread.currentThread();
    private final int max = Configuration.DEFERRED_WAKES_MAX;
    /** Guards {@link #owed} and {@link #count}: the owner's, and {@link WakeBound}'s once they are owed too long. */
    private final ReentrantLock lock = new ReentrantLock();
    /** The tasks whose wakes are owed, in {@code [0, count)}. */
    private final Pending[] owed = new Pending[max];
    private int count;
    /** The tasks one {@link #issue} of the owner's wakes the loops of, taken out of {@link #owed} under the lock; the owner's. */
    private final Pending[] issuing = new Pending[max];
    /** When the oldest wake was owed ({@code System.nanoTime}, never 0); 0: nothing owed. */
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

    /**
     * Queues {@code work}'s task on its loop without waking it (the loop runs it the next time it wakes, for whatever
     * reason) and owes the wake: issued at the next {@link #issue} if the task is still due then. The owner's.
     */
    void owe(Pending work) {
        queueWithoutWake(work); // before it is owed: an issue that finds it owed finds it queued
        oweWake(work);
    }

    /**
     * Owes the wake of {@code work}'s loop, whose task is queued there already without one (a drain another deferring
     * thread queued, which takes this thread's deliveries too). The owner's.
     */
    void oweWake(Pending work) {
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

    /**
     * Queues {@code work}'s task on its loop without a wake ({@code lazyExecute}); a loop that cannot queue a task
     * without waking is woken now.
     */
    static void queueWithoutWake(Pending work) {
        EventLoop loop = work.loop();
        try {
            if (loop instanceof AbstractEventExecutor lazy) {
                lazy.lazyExecute(work.task());
            } else {
                loop.execute(work.task());
            }
        } catch (RejectedExecutionException e) {
            // the loop has shut down, with the queue manager: nothing runs there any more
        }
    }

    /** Wakes the loops whose owed tasks have not run yet, each once; the owner's. */
    public void issue() {
        wake(issuing, take(issuing));
    }

    /**
     * Takes the tasks whose wakes are owed into {@code into} and returns how many; under the lock, so the owner and
     * {@link WakeBound} never issue the same wakes.
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
     * Wakes the loop of each of the first {@code n} tasks of {@code tasks} that is still due, once per loop (the loop
     * then runs every task queued on it, in the order queued), and forgets them. A loop whose tasks have all run (it
     * woke for something else since they were queued) is not woken: the wake owed for a reply is mostly one the loop
     * took anyway, for its next read.
     */
    static void wake(Pending[] tasks, int n) {
        for (int i = 0; i < n; i++) {
            Pending work = tasks[i];
            if (work == null) {
                continue; // its loop was looked at with an earlier task's
            }
            EventLoop loop = work.loop();
            boolean due = false;
            for (int j = i; j < n; j++) { // this loop's tasks, each looked at once
                if (tasks[j] != null && tasks[j].loop() == loop) {
                    due |= tasks[j].pending();
                    tasks[j] = null;
                }
            }
            if (due) {
                try {
                    loop.execute(WAKE);
                } catch (RejectedExecutionException e) {
                    // the loop has shut down, with the queue manager: nothing runs there any more
                }
            }
        }
    }

    /** When the oldest wake was owed, 0 when none is. Any thread. */
    long owedSince() {
        return owedSince;
    }

    /** Issues the wakes owed and stops deferring: the owner's. */
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
