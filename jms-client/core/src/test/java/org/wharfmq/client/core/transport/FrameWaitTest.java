package org.wharfmq.client.core.transport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.ClientConfiguration;
import org.wharfmq.protocol.frame.Frame;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The leader/follower wait: its timeout, its wake-up, and the hand-over of the read turn from one waiting thread to
 * the next, against a link whose "socket" is a queue (the read turn, followers and promotion as {@link SocketLink}
 * has them, without a reader thread, so the order of events is the test's).
 */
class FrameWaitTest {
    private final List<Thread> started = new ArrayList<>();

    @AfterEach
    void stopThreads() throws InterruptedException {
        for (Thread t : started) {
            t.interrupt();
            t.join(5000);
        }
    }

    /** A wait that is over once {@link #over} is set. */
    private static final class FlagWait extends FrameWait {
        final AtomicBoolean over = new AtomicBoolean();

        FlagWait(FrameLink link) {
            super(link);
        }

        @Override
        protected boolean isOver() {
            return over.get();
        }

        /** What delivering the awaited frame does: changes the state, then wakes. */
        void deliver() {
            over.set(true);
            wake();
        }
    }

    private Thread start(String name, Runnable task) {
        Thread t = new Thread(task, name);
        t.setDaemon(true);
        started.add(t);
        t.start();
        return t;
    }

    @Test
    void aWaitThatNothingEndsReturnsFalseOnceItsTimeIsUp() {
        FlagWait wait = new FlagWait(new TurnLink(false));
        long before = System.nanoTime();
        assertFalse(wait.await(TimeUnit.MILLISECONDS.toNanos(50)));
        long took = System.nanoTime() - before;
        assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(50), "returned after " + took + " ns");
        assertTrue(took < TimeUnit.SECONDS.toNanos(5), "returned after " + took + " ns");
    }

    @Test
    void anInterruptedThreadStopsWaitingAtOnceAndKeepsItsInterrupt() {
        FlagWait wait = new FlagWait(new TurnLink(false));
        Thread.currentThread().interrupt();
        try {
            assertFalse(wait.await(-1), "without a limit, yet it returns");
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aSleepingWaiterIsWokenByTheThreadThatDeliversWhatItWaitsFor() throws Exception {
        TurnLink link = new TurnLink(false); // another thread reads: the waiter can only follow and sleep
        FlagWait wait = new FlagWait(link);
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        start("waiter", () -> result.complete(wait.await(-1)));
        assertTrue(link.followed.await(10, TimeUnit.SECONDS), "the waiter follows");
        wait.deliver();
        assertTrue(result.get(10, TimeUnit.SECONDS), "woken, and the wait is over");
    }

    @Test
    void whatWasDeliveredBeforeTheWaitBeganEndsItWithoutSleeping() {
        FlagWait wait = new FlagWait(new TurnLink(false));
        wait.deliver(); // nobody waits yet: the wake-up is nobody's, the state is what counts
        assertTrue(wait.await(-1));
    }

    @Test
    void theReadTurnPassesFromAWaiterThatIsDoneToTheWaiterThatFollows() throws Exception {
        TurnLink link = new TurnLink(true);
        FlagWait forA = new FlagWait(link);
        FlagWait forB = new FlagWait(link);
        CompletableFuture<Boolean> a = new CompletableFuture<>();
        CompletableFuture<Boolean> b = new CompletableFuture<>();
        start("waiter-A", () -> a.complete(forA.await(-1)));
        assertTrue(link.turnTaken.await(10, TimeUnit.SECONDS), "A reads: the turn was free");
        start("waiter-B", () -> b.complete(forB.await(-1)));
        assertTrue(link.followed.await(10, TimeUnit.SECONDS), "B finds the turn taken and follows");

        link.wire.add(forA::deliver); // A reads its frame, is done, and lets go of the turn
        assertTrue(a.get(10, TimeUnit.SECONDS));
        link.wire.add(forB::deliver); // B, woken to take the turn over, reads its frame itself
        assertTrue(b.get(10, TimeUnit.SECONDS), "B took over the turn and read its own frame");
        assertEquals(List.of("waiter-A", "waiter-B"), link.readers, "each frame read by the thread that waited for it");
    }

    @Test
    void aSecondThreadWaitingOnTheSameWaitIsNotLost() throws Exception {
        TurnLink link = new TurnLink(false);
        FlagWait wait = new FlagWait(link);
        CompletableFuture<Boolean> first = new CompletableFuture<>();
        CompletableFuture<Boolean> second = new CompletableFuture<>();
        start("first", () -> first.complete(wait.await(-1)));
        assertTrue(link.followed.await(10, TimeUnit.SECONDS));
        start("second", () -> second.complete(wait.await(-1)));
        wait.deliver();
        assertTrue(first.get(10, TimeUnit.SECONDS));
        assertTrue(second.get(10, TimeUnit.SECONDS), "it looks again on its own");
    }

    /**
     * A wait that has read the socket for a slice without what it waits for leaves the socket (to the link's reader
     * thread) and sleeps until what it waits for wakes it: it no longer reads slice after slice, each slice's end a
     * wake-up for it and for the reader thread queued for the turn. The link reads as a socket link does, for one
     * slice at most, and nothing comes; the test waits until the waiter sleeps on the wait itself, then delivers.
     * (Reading on, the waiter never sleeps there: the test's barrier runs out.)
     */
    @Test
    void aWaitThatReadASliceWithoutItsFrameLeavesTheSocketAndSleepsUntilWoken() throws Exception {
        TurnLink link = new TurnLink(true, TimeUnit.MILLISECONDS.toNanos(ClientConfiguration.LEAD_SLICE_MILLIS));
        FlagWait wait = new FlagWait(link);
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        Thread waiter = start("waiter", () -> result.complete(wait.await(TimeUnit.SECONDS.toNanos(60))));
        assertTrue(link.turnTaken.await(10, TimeUnit.SECONDS), "it reads first: the turn was free");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (LockSupport.getBlocker(waiter) != wait) {
            assertTrue(System.nanoTime() < deadline, "the waiter sleeps on the wait, no longer reading: it read "
                    + link.slices.get() + " slices");
            Thread.yield();
        }
        int slices = link.slices.get();
        wait.deliver(); // the reader thread read what it waits for
        assertTrue(result.get(10, TimeUnit.SECONDS), "woken, and the wait is over");
        assertEquals(slices, link.slices.get(), "it read no more");
        assertEquals(1, slices, "one slice: nothing came within it");
    }

    /**
     * A link whose socket is {@link #wire}: a thread holding the turn takes the next delivery from it and runs it. With
     * {@code readable} false another thread holds the turn for good, as the reader thread of a socket link does once a
     * listener is in use, and a vm:// link always.
     */
    private static final class TurnLink extends TestLink {
        final BlockingQueue<Runnable> wire = new LinkedBlockingQueue<>();
        final List<String> readers = new CopyOnWriteArrayList<>();
        final CountDownLatch turnTaken = new CountDownLatch(1);
        final CountDownLatch followed = new CountDownLatch(1);
        final AtomicInteger slices = new AtomicInteger();
        private final boolean readable;
        private final long sliceNanos;
        private final ReentrantLock turn = new ReentrantLock();
        private final Queue<Runnable> followers = new ConcurrentLinkedQueue<>();

        TurnLink(boolean readable) {
            this(readable, Long.MAX_VALUE);
        }

        /** Reading for {@code sliceNanos} at most at a time, as a socket link reads for one slice. */
        TurnLink(boolean readable, long sliceNanos) {
            this.readable = readable;
            this.sliceNanos = sliceNanos;
        }

        @Override
        public boolean readWhileWaiting(long maxNanos) {
            if (!readable || !turn.tryLock()) {
                return false;
            }
            try {
                turnTaken.countDown();
                slices.incrementAndGet();
                Runnable frame = wire.poll(Math.min(maxNanos, sliceNanos), TimeUnit.NANOSECONDS);
                if (frame != null) {
                    readers.add(Thread.currentThread().getName());
                    frame.run();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                turn.unlock();
                promote();
            }
            return true;
        }

        @Override
        public boolean follow(Runnable wake) {
            if (!readable) {
                followed.countDown();
                return true;
            }
            followers.add(wake);
            if (!turn.isLocked()) {
                followers.remove(wake);
                return false;
            }
            followed.countDown();
            return true;
        }

        @Override
        public void unfollow(Runnable wake) {
            followers.remove(wake);
        }

        @Override
        public void promote() {
            if (!turn.isLocked()) {
                Runnable next = followers.poll();
                if (next != null) {
                    next.run();
                }
            }
        }

        @Override
        public void write(Frame frame) {
            throw new UnsupportedOperationException();
        }
    }
}
