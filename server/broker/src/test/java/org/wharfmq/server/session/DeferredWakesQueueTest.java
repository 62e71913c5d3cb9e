package org.wharfmq.server.session;

import io.netty.channel.EventLoop;
import io.netty.channel.SingleThreadEventLoop;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ThreadPerTaskExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What one issue of owed wakes ({@link DeferredWakes#queue}) asks of each loop: a wake for all of its tasks, not one
 * per task, and never a task left queued without one. The loop here is a real single-thread event loop that sleeps
 * until woken, as an epoll or NIO loop does, and counts the wakes it is asked for.
 */
class DeferredWakesQueueTest {

    private final List<SleepingLoop> loops = new ArrayList<>();

    @AfterEach
    void stopLoops() {
        loops.forEach(loop -> loop.shutdownGracefully(0, 0, TimeUnit.SECONDS));
    }

    @Test
    void eachLoopIsWokenOnceForAllItsTasks() throws InterruptedException {
        SleepingLoop first = loop();
        SleepingLoop second = loop();
        CountDownLatch ran = new CountDownLatch(6);
        List<Integer> order = new ArrayList<>();
        DeferredWakes.Pending[] tasks = {
                task(first, () -> ordered(order, 1, ran)), task(second, ran::countDown),
                task(first, () -> ordered(order, 2, ran)), task(second, ran::countDown),
                task(first, () -> ordered(order, 3, ran)), task(first, () -> ordered(order, 4, ran))};

        DeferredWakes.queue(tasks, tasks.length);

        assertTrue(ran.await(30, TimeUnit.SECONDS), "every task ran");
        assertEquals(List.of(1, 2, 3, 4), order, "a loop's tasks run in the order owed");
        assertEquals(1, first.wakes.get(), "one wake for the first loop's four tasks");
        assertEquals(1, second.wakes.get(), "one wake for the second loop's two tasks");
        for (DeferredWakes.Pending task : tasks) {
            assertNull(task, "the tasks are forgotten once queued");
        }
    }

    /**
     * A loop's last task is due no more (another thread queued that drain meanwhile): the tasks queued before it
     * without a wake must still run, so the loop is woken all the same.
     */
    @Test
    void aLoopWhoseLastTaskIsDueNoMoreIsWokenForTheTasksBeforeIt() throws InterruptedException {
        SleepingLoop loop = loop();
        CountDownLatch ran = new CountDownLatch(1);
        DeferredWakes.Pending[] tasks = {task(loop, ran::countDown), notDue(loop)};

        DeferredWakes.queue(tasks, tasks.length);

        assertTrue(ran.await(30, TimeUnit.SECONDS), "the task queued without a wake ran");
        assertEquals(1, loop.wakes.get());
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

    private static DeferredWakes.Pending task(EventLoop loop, Runnable task) {
        return pending(loop, task, true);
    }

    private static DeferredWakes.Pending notDue(EventLoop loop) {
        return pending(loop, () -> {
            throw new AssertionError("a task due no more was run");
        }, false);
    }

    private static DeferredWakes.Pending pending(EventLoop loop, Runnable task, boolean due) {
        return new DeferredWakes.Pending() {
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
                return due;
            }
        };
    }

    /**
     * An event loop that sleeps until it is woken (adding a task does not wake it, as with epoll and NIO loops), then
     * runs every task queued; it counts the wakes asked of it by other threads.
     */
    private static final class SleepingLoop extends SingleThreadEventLoop {
        private static final Executor THREADS = new ThreadPerTaskExecutor(new DefaultThreadFactory("wakes-test"));
        final AtomicInteger wakes = new AtomicInteger();
        private final Semaphore woken = new Semaphore(0);

        SleepingLoop() {
            super(null, THREADS, false);
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
            }
            woken.release();
        }
    }
}
