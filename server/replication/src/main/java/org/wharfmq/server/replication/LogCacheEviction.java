package org.wharfmq.server.replication;

import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.raftlog.segmented.SegmentedRaftLog;
import org.apache.ratis.util.AwaitToRun;

import java.lang.reflect.Field;

/**
 * A member's Raft log's cache-eviction thread, stopped before Ratis closes the log, whose close can otherwise hang for
 * ever.
 *
 * <p>Why: Ratis's {@code SegmentedRaftLog.close} (3.2.1, and 3.2.2, 3.3.0 and its main branch alike) takes the log's
 * write lock and, holding it, interrupts its cache-eviction thread and joins it ({@code AwaitToRun.close}). That
 * thread, woken by an append that rolled a segment or a read that loaded one, checks whether the cache holds more than
 * it should and then takes the same write lock ({@code checkAndEvictCache}); a {@code ReentrantReadWriteLock}'s
 * {@code lock()} does not heed the interrupt. If the close takes the lock between the thread's check and its
 * {@code lock()}, each waits for the other: the member's close never returns, its log directory stays locked, and the
 * member cannot rejoin in its process (seen at {@code ReplicatedFailoverTest}'s switchover: the leaving member had just
 * read old segments to send a restarted member its log, so its cache held more than it could evict and every append
 * woke the thread).
 *
 * <p>{@link #stop} closes the thread first, without the lock held: waiting for its next signal, it is interrupted and
 * ends; waiting for the lock, it gets it once whoever holds it for an append lets go, evicts, and ends. Ratis's own
 * close then finds it closed and joins nothing. The member's state machine stops it when Ratis closes that, which
 * Ratis does just before it closes the log, on every way a member stops (its owner's close, an entry it could not
 * apply, its removal from the group): {@link JournalStateMachine#close}.
 */
final class LogCacheEviction {

    /** {@code SegmentedRaftLog}'s cache-eviction thread, a private field: Ratis gives no other way to it. */
    private static final String FIELD = "cacheEviction";

    private final AwaitToRun thread;

    private LogCacheEviction(AwaitToRun thread) {
        this.thread = thread;
    }

    /**
     * {@code log}'s cache-eviction thread. Refused, naming the cause, when {@code log} is not a segmented log with that
     * thread where Ratis 3.2.1 has it: another Ratis version may have changed it (fixed it, perhaps: then this goes).
     */
    static LogCacheEviction of(RaftLog log) {
        if (log instanceof SegmentedRaftLog) {
            try {
                Field field = SegmentedRaftLog.class.getDeclaredField(FIELD);
                field.setAccessible(true);
                if (field.get(log) instanceof AwaitToRun thread) {
                    return new LogCacheEviction(thread);
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                // refused below
            }
        }
        throw new IllegalStateException("This Ratis version's Raft log (" + log.getClass().getName() + ") has no "
                + "cache-eviction thread where Ratis 3.2.1's SegmentedRaftLog has it (field " + FIELD + "); the "
                + "replication stops that thread before Ratis closes the log, whose close can otherwise hang for ever "
                + "(LogCacheEviction). Use Ratis 3.2.1, or check whether this version's log close still joins that "
                + "thread while holding the log's write lock.");
    }

    /** Ends the thread and waits for it (at most as long as an append holds the log's write lock); then idempotent. */
    void stop() {
        thread.close();
    }
}
