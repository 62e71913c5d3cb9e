package org.wharfmq.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The order in which the broker's locks nest, checked while assertions are on (tests run with {@code -ea}): a thread
 * may take a lock of a later {@link Rank} while it holds one of an earlier rank, never the other way, and never two
 * different locks of the same rank (two queues' locks, two sessions'). Each thread's held {@link OrderedLock}s are
 * recorded as it takes and releases them; taking one out of order fails with an {@link AssertionError} naming both,
 * and is remembered ({@link #violations}) so that a test sees it even when it happened on a server thread that only
 * logs what it throws.
 *
 * <p>The checks run only inside {@code assert} statements: with assertions off (production, benchmarks) the JIT
 * removes them, so taking a lock costs what a {@link java.util.concurrent.locks.ReentrantLock} costs.
 *
 * <p>The order, outermost first (docs/architecture.md, "Who owns what"): the {@code QueueManager}'s definitions lock
 * (an administrator's define, alter or delete) may be held while a queue's lock is taken; so may the
 * {@code TopicManager}'s lock; a queue's lock may be held while its consumer's session's lock is taken (a delivery is
 * recorded); nothing is taken under a session's lock. The queue's lock is released before anything moves to another
 * queue (dead letters, backouts) or is published (events).
 */
public final class LockOrder {

    /** The ranks, outermost first: a lock of a rank may be taken only while the thread holds none of a later or equal one. */
    public enum Rank {
        /** The queue manager's definitions ({@code QueueManager}): queues, aliases and remote definitions made at run time. */
        DEFINITIONS,
        /** The topic manager's ({@code TopicManager}): subscriptions by name and queue, their consumer counts. */
        TOPICS,
        /** A queue's lock ({@code LocalQueue}): its messages, consumers, credit, depth, memory and paged messages. */
        QUEUE,
        /** A session's lock ({@code BrokerSession}): its delivery ids, unacknowledged deliveries and unwritten frames. */
        SESSION
    }

    private static final ThreadLocal<List<OrderedLock>> HELD = ThreadLocal.withInitial(() -> new ArrayList<>(4));
    private static final Set<String> VIOLATIONS = ConcurrentHashMap.newKeySet();
    private static final Set<String> NESTINGS = ConcurrentHashMap.newKeySet();

    private LockOrder() {
    }

    /**
     * {@code lock} is about to be taken by this thread: fails when the thread holds a lock of its rank or a later
     * one (other than {@code lock} itself, re-entered). For {@code assert} only.
     */
    static boolean acquiring(OrderedLock lock) {
        List<OrderedLock> held = HELD.get();
        if (!lock.isHeldByCurrentThread()) {
            for (int i = 0; i < held.size(); i++) {
                OrderedLock outer = held.get(i);
                if (outer == lock) {
                    continue;
                }
                if (outer.rank().compareTo(lock.rank()) >= 0) {
                    String violation = Thread.currentThread().getName() + " takes " + lock + " while holding "
                            + outer + ": the lock order (LockOrder.Rank) is " + List.of(Rank.values());
                    VIOLATIONS.add(violation);
                    throw new AssertionError(violation);
                }
                NESTINGS.add(outer.rank() + " > " + lock.rank());
            }
        }
        held.add(lock);
        return true;
    }

    /** {@code lock} was released by this thread once. For {@code assert} only. */
    static boolean released(OrderedLock lock) {
        List<OrderedLock> held = HELD.get();
        for (int i = held.size() - 1; i >= 0; i--) {
            if (held.get(i) == lock) {
                held.remove(i);
                return true;
            }
        }
        return true;
    }

    /** The acquisitions out of order seen in this JVM so far, each described once (for tests). */
    public static Set<String> violations() {
        return Set.copyOf(VIOLATIONS);
    }

    /** The nestings seen in this JVM so far, as "OUTER > INNER" ranks (for tests: proof that the check ran). */
    public static Set<String> nestings() {
        return Set.copyOf(NESTINGS);
    }

    /** Whether the checks run: assertions are on for this class. */
    public static boolean checked() {
        boolean on = false;
        assert on = true;
        return on;
    }
}
