package org.wharfmq.server.session;

import org.wharfmq.server.Configuration;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The bound on {@link DeferredWakes}: one daemon thread of the JVM's ({@code wharf-wake-bound}, started with the first
 * thread that defers its wakes) that issues the wakes a thread has owed for {@link Configuration#DEFERRED_WAKE_BOUND_MICROS}
 * or longer (within twice that), whatever that thread is doing (blocked in a database call, an HTTP request, a file or
 * another JMS provider, or busy in a long node): it takes that thread's owed wakes and wakes the loops whose tasks
 * have not run yet.
 *
 * <p>What it costs: while some thread owes wakes it looks once per bound (at most {@code 1 s / bound} times a second,
 * 1,000 at the default), reading one volatile per deferring thread; it goes on looking for two bounds after the last
 * owed wake was issued, so that a busy reader, which owes wakes again a moment after issuing them, never has to wake
 * it; then it parks until a thread owes wakes again, which that thread's {@link DeferredWakes#owe} ends by an unpark.
 */
final class WakeBound implements Runnable {

    private static final System.Logger LOG = System.getLogger(WakeBound.class.getName());

    private static final long BOUND_NANOS = TimeUnit.MICROSECONDS.toNanos(Configuration.DEFERRED_WAKE_BOUND_MICROS);
    /** Bounds looked at with nothing owed before the thread parks without a deadline. */
    private static final int IDLE_LOOKS = 2;

    static final WakeBound INSTANCE = new WakeBound();

    private final CopyOnWriteArrayList<DeferredWakes> watched = new CopyOnWriteArrayList<>();
    /** The tasks of one thread whose loops this one wakes; its own. */
    private final DeferredWakes.Pending[] issuing = new DeferredWakes.Pending[Configuration.DEFERRED_WAKES_MAX];
    private volatile Thread thread;
    /** The thread parks without a deadline: a thread that comes to owe wakes unparks it. */
    private volatile boolean parked;

    private WakeBound() {
    }

    /** Watches {@code wakes} from now on; starts the thread on first use. */
    synchronized void watch(DeferredWakes wakes) {
        watched.add(wakes);
        if (thread == null) {
            Thread t = new Thread(this, "wharf-wake-bound");
            t.setDaemon(true);
            thread = t;
            t.start();
        }
        LockSupport.unpark(thread);
    }

    /** Stops watching {@code wakes} (its owner has issued what it owed and stopped deferring). */
    void unwatch(DeferredWakes wakes) {
        watched.remove(wakes);
    }

    /** A thread came to owe wakes: the bound's thread must look again within the bound. Any thread. */
    void owing() {
        if (parked) {
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void run() {
        int idle = 0;
        while (true) {
            try {
                idle = look(idle);
            } catch (RuntimeException e) { // never the end of the bound
                LOG.log(System.Logger.Level.WARNING, "Issuing owed wakes failed: " + e, e);
                LockSupport.parkNanos(this, BOUND_NANOS);
            }
        }
    }

    /** One look at the owed wakes and the park after it; returns the looks with nothing owed so far. */
    private int look(int idle) {
        long now = System.nanoTime();
        long next = Long.MAX_VALUE;
        for (DeferredWakes wakes : watched) {
            long since = wakes.owedSince();
            if (since == 0) {
                continue;
            }
            if (now - since >= BOUND_NANOS) {
                DeferredWakes.wake(issuing, wakes.take(issuing));
            } else {
                next = Math.min(next, since + BOUND_NANOS);
            }
        }
        if (next != Long.MAX_VALUE) {
            LockSupport.parkNanos(this, next - now);
            return 0;
        }
        if (idle < IDLE_LOOKS) {
            LockSupport.parkNanos(this, BOUND_NANOS);
            return idle + 1;
        }
        parked = true;
        if (!anyOwed()) { // looked at after saying so: a thread that owes since then unparks this one
            LockSupport.park(this);
        }
        parked = false;
        return 0;
    }

    private boolean anyOwed() {
        for (DeferredWakes wakes : watched) {
            if (wakes.owedSince() != 0) {
                return true;
            }
        }
        return false;
    }
}
