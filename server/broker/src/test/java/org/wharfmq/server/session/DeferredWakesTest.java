package org.wharfmq.server.session;

import io.netty.channel.EventLoop;
import io.netty.channel.SingleThreadEventLoop;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.concurrent.ThreadPerTaskExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a thread that defers its wakes ({@link DeferredWakes}) asks of the loops it owes tasks: each task queued at once
 * without a wake, run by its loop the next time that loop wakes for anything else; a wake, at an issue, only for a
 * loop whose tasks have not run yet, once for all of them; and never a task left queued without one. The loops here
 * are real single-thread event loops that sleep until woken, as epoll and NIO loops do (a task queued without a wake
 * waits), and count the wakes asked of them, by thread.
 */
class DeferredWakesTest {

    private final List<SleepingLoop> loops = new ArrayList<>();

    @AfterEach
    void stopLoops() {
        loops.forEach(loop -> loop.shutdownGracefully(0, 0, TimeUnit.SECONDS));
    }

    /**
     * A reply's drain owed by a reader runs when its loop wakes for something else (another connection's read, here a
     * task of the test's), before the reader issues anything; the reader's issue then asks that loop for no wake.
     */
    @Test
    void anOwedTaskRunsWhenItsLoopWakesForAnythingElse() throws Exception {
        SleepingLoop loop = loop();
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        Due reply = new Due(loop, () -> order.add("owed"));
        CountDownLatch otherRan = new CountDownLatch(1);

        AtomicReference<Thread> owner = new AtomicReference<>();
        onDeferringThread(wakes -> {
            owner.set(Thread.currentThread());
            wakes.owe(reply);
            Thread other = new Thread(() -> loop.execute(() -> { // the loop woken by another thread, for its own task
                order.add("other");
                otherRan.countDown();
            }), "other-waker");
            other.start();
            other.join();
            assertTrue(otherRan.await(30, TimeUnit.SECONDS), "the loop ran the task it was woken for");
            assertEquals(List.of("owed", "other"), List.copyOf(order),
                    "the owed task ran with the loop's next wake, before the task that woke it");
            wakes.issue();
        });

        assertEquals(0, loop.wakesAskedBy(owner.get()), "no wake asked by the owner for a task that ran already");
    }

    /** An owed task whose loop sleeps on runs at the owner's issue, which wakes its loop once. */
    @Test
    void anIssueWakesTheLoopOfATaskNotRunYet() throws Exception {
        SleepingLoop loop = loop();
        CountDownLatch ran = new CountDownLatch(1);
        AtomicReference<Thread> owner = new AtomicReference<>();
        onDeferringThread(wakes -> {
            owner.set(Thread.currentThread());
            wakes.owe(new Due(loop, ran::countDown));
            wakes.issue();
            assertTrue(ran.await(30, TimeUnit.SECONDS), "the owed task ran once its wake was issued");
        });
        assertTrue(loop.wakesAskedBy(owner.get()) <= 1, "at most one wake by the owner (none if the bound woke it)");
    }

    /** An owed task whose owner never issues (it blocks in a node) runs all the same: the bound's thread wakes its loop. */
    @Test
    void theBoundWakesTheLoopOfATaskItsOwnerNeverIssues() throws Exception {
        SleepingLoop loop = loop();
        CountDownLatch ran = new CountDownLatch(1);
        onDeferringThread(wakes -> {
            wakes.owe(new Due(loop, ran::countDown));
            assertTrue(ran.await(30, TimeUnit.SECONDS), "the owed task ran while its owner waited");
        });
    }

    @Test
    void eachLoopWithTasksDueIsWokenOnceForAllOfThem() throws InterruptedException {
        SleepingLoop first = loop();
        SleepingLoop second = loop();
        CountDownLatch ran = new CountDownLatch(6);
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        DeferredWakes.Pending[] tasks = {
                new Due(first, () -> ordered(order, 1, ran)), new Due(second, ran::countDown),
                new Due(first, () -> ordered(order, 2, ran)), new Due(second, ran::countDown),
                new Due(first, () -> ordered(order, 3, ran)), new Due(first, () -> ordered(order, 4, ran))};
        for (DeferredWakes.Pending task : tasks) {
            DeferredWakes.queueWithoutWake(task);
        }

        DeferredWakes.wake(tasks, tasks.length);

        assertTrue(ran.await(30, TimeUnit.SECONDS), "every task ran");
        assertEquals(List.of(1, 2, 3, 4), List.copyOf(order), "a loop's tasks run in the order owed");
        assertEquals(1, first.wakes(), "one wake for the first loop's four tasks");
        assertEquals(1, second.wakes(), "one wake for the second loop's two tasks");
        for (DeferredWakes.Pending task : tasks) {
            assertNull(task, "the tasks are forgotten once their wakes are issued");
        }
    }

    /**
     * A loop with a task still due among others due no more (run already, or taken over by a drain another thread
     * queued with a wake) is woken; a loop with none due is not.
     */
    @Test
    void onlyALoopWithATaskStillDueIsWoken() throws InterruptedException {
        SleepingLoop due = loop();
        SleepingLoop done = loop();
        CountDownLatch ran = new CountDownLatch(1);
        Due queued = new Due(due, ran::countDown);
        DeferredWakes.queueWithoutWake(queued);
        DeferredWakes.Pending[] tasks = {Due.doneOn(due), Due.doneOn(done), queued, Due.doneOn(done)};

        DeferredWakes.wake(tasks, tasks.length);

        assertTrue(ran.await(30, TimeUnit.SECONDS), "the task due ran");
        assertEquals(1, due.wakes());
        assertEquals(0, done.wakes(), "no wake for a loop whose tasks were all done");
    }

    private interface OwnerWork {
        void run(DeferredWakes wakes) throws Exception;
    }

    /** Runs {@code work} on a thread that defers its wakes, as a flow's reader does, and rethrows what it threw. */
    private static void onDeferringThread(OwnerWork work) throws Exception {
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread owner = new FastThreadLocalThread(() -> {
            DeferredWakes wakes = DeferredWakes.begin();
            try {
                work.run(wakes);
            } catch (Throwable t) {
                failed.set(t);
            } finally {
                wakes.close();
            }
        }, "deferring-owner");
        owner.start();
        owner.join(60_000);
        assertTrue(!owner.isAlive(), "the owner finished");
        Throwable t = failed.get();
        if (t instanceof Exception e) {
            throw e;
        } else if (t instanceof Error e) {
            throw e;
        }
    }

    private static void ordered(List<Integer> order, int n, CountDownLatch ran) {
        order.add(n); // on the loop's one thread
        ran.countDown();
    }

    private SleepingLoop loop() {
        SleepingLoop loop = new SleepingLoop();
        loops.add(loop);
        return loop;
    }

    /** A task due until it has run, as a session's drain or an input's settlement is. */
    private static final class Due implements DeferredWakes.Pending {
        private final EventLoop loop;
        private final AtomicBoolean due;
        private final Runnable task;

        Due(EventLoop loop, Runnable work) {
            this(loop, work, true);
        }

        private Due(EventLoop loop, Runnable work, boolean due) {
            this.loop = loop;
            this.due = new AtomicBoolean(due);
            this.task = () -> {
                this.due.set(false); // as a drain clears its flag before it takes the deliveries
                work.run();
            };
        }

        /** A task due no more, which must not run again. */
        static Due doneOn(EventLoop loop) {
            return new Due(loop, () -> {
                throw new AssertionError("a task due no more was run");
            }, false);
        }

        @Override
        public EventLoop loop() {
            return loop;
        }

        @Override
        public Runnable task() {
            return task;
        }

        @Override
        public boolean pending() {
            return due.get();
        }
    }

    /**
     * An event loop that sleeps until it is woken (adding a task without a wake does not wake it, as with epoll and
     * NIO loops), then runs every task queued; it counts the wakes asked of it by other threads, by thread.
     */
    private static final class SleepingLoop extends SingleThreadEventLoop {
        private static final Executor THREADS = new ThreadPerTaskExecutor(new DefaultThreadFactory("wakes-test"));
        private final List<Thread> wakers = Collections.synchronizedList(new ArrayList<>());
        private final AtomicInteger wakes = new AtomicInteger();
        private final Semaphore woken = new Semaphore(0);

        SleepingLoop() {
            super(null, THREADS, false);
        }

        int wakes() {
            return wakes.get();
        }

        int wakesAskedBy(Thread thread) {
            synchronized (wakers) {
                return (int) wakers.stream().filter(t -> t == thread).count();
            }
        }

        @Override
        protected void run() {
            while (!confirmShutdown()) {
                woken.acquireUninterruptibly();
                runAllTasks();
            }
        }

        @Override
        protected void wakeup(boolean inEventLoop) {
            if (!inEventLoop) {
                wakes.incrementAndGet();
                wakers.add(Thread.currentThread());
            }
            woken.release();
        }
    }
}
