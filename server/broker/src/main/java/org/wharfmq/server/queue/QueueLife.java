package org.wharfmq.server.queue;

import org.wharfmq.server.OrderedLock;
import org.wharfmq.server.store.Persistence;
import org.wharfmq.server.store.StoreCompletion;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/**
 * One {@link LocalQueue}'s life: whether it is in use (consumers and browsers attached; for a queue created by use,
 * since when it has been unused), whether it is deleted (unused for the auto-delete delay, by an administrator, or as
 * the subscription or temporary queue it is ends), and its end: every message it holds taken off the lists and the
 * page files, out of the depth, the budgets and the store.
 *
 * <h2>Deletion when unused</h2>
 * A queue created by use ({@link #autoCreated}) is <i>unused</i> while its depth is 0 (no message waiting,
 * delivered, reserved by an open transaction or waiting for its delivery time) and no consumer or browser is
 * {@link #attach attached}; it remembers since when ({@link #noteIfUnused}). {@link #deleteIfUnused} deletes it once
 * that has lasted the delay, under the lock, so nothing can use it in between: a reservation or attachment that
 * comes later finds it deleted ({@link #refusesUse}), and its caller looks the queue up again, which finds or creates
 * its successor. Time is read from the queue manager's clock, never from the system directly.
 *
 * <h2>Threading</h2>
 * Owned by its queue and guarded by the queue's lock: its state's methods run under it and assert so (but
 * {@link #autoCreated}, a volatile); its end ({@link #clear}, {@link #delete}, {@link #retire}) are entry points that
 * take the lock themselves, release it with {@link LocalQueue#unlock()} and remove from the store once it is released.
 */
final class QueueLife {

    private final LocalQueue queue;
    private final OrderedLock lock;
    private final InstantSource clock;
    private final QueueAccounting accounting;
    private final QueueDispatch dispatch;
    private final QueuePager paging;
    private final Persistence persistence;

    /** Written under the lock (an administrator's definition keeps the queue: {@link #keep}); read racily to skip. */
    private volatile boolean autoCreated;
    /**
     * Deleted by an administrator: like a deleted auto-created queue it refuses reservations and attachments, so
     * that whoever looked it up just before looks the name up again (finding its successor, or nothing).
     */
    private boolean retired;
    /** Consumers and browsers attached ({@link #attach}): an auto-created queue is not deleted while there are any. */
    private int attached;
    /** When an auto-created queue last became unused (depth 0, nothing attached); meaningful only while unused. */
    private long unusedSince;
    /**
     * A deleted queue (temporary queue, ended subscription) keeps nothing: messages that reach it are discarded. A
     * deleted auto-created queue (deleted when unused) refuses reservations and attachments instead.
     */
    private boolean deleted;

    QueueLife(LocalQueue queue, OrderedLock lock, InstantSource clock, boolean autoCreated, QueueAccounting accounting,
              QueueDispatch dispatch, QueuePager paging, Persistence persistence) {
        this.queue = queue;
        this.lock = lock;
        this.clock = clock;
        this.autoCreated = autoCreated;
        this.unusedSince = autoCreated ? clock.millis() : 0;
        this.accounting = accounting;
        this.dispatch = dispatch;
        this.paging = paging;
        this.persistence = persistence;
    }

    // ---- its state, under the lock ----

    /** Whether it was created by use: deleted once unused for the auto-delete delay (a volatile read). */
    boolean autoCreated() {
        return autoCreated;
    }

    /** Whether it is deleted: what reaches it is discarded. */
    boolean deleted() {
        assert lock.isHeldByCurrentThread();
        return deleted;
    }

    /** {@link #deleted}, for paging, which reads it under the lock but where a hint will do (a paged browse). */
    boolean deletedForPaging() {
        return deleted;
    }

    /** Whether it refuses reservations and attachments: deleted when unused, or by an administrator. */
    boolean refusesUse() {
        assert lock.isHeldByCurrentThread();
        return deleted && (autoCreated || retired);
    }

    /** A consumer or browser starts using it; false, attaching nothing, when it {@link #refusesUse}. */
    boolean attach() {
        assert lock.isHeldByCurrentThread();
        if (refusesUse()) {
            return false;
        }
        attached++;
        return true;
    }

    /** A consumer or browser attached with {@link #attach} has closed. */
    void detach() {
        assert lock.isHeldByCurrentThread();
        attached--;
        noteIfUnused();
    }

    /** Consumers and browsers attached. */
    int attached() {
        assert lock.isHeldByCurrentThread();
        return attached;
    }

    /** After the depth or the attachments went down: an auto-created queue now unused starts counting its time. */
    void noteIfUnused() {
        assert lock.isHeldByCurrentThread();
        if (autoCreated && accounting.depth() == 0 && attached == 0) {
            unusedSince = clock.millis();
        }
    }

    /** See {@link LocalQueue#deleteIfUnused}. */
    boolean deleteIfUnused(long now, long delay) {
        assert lock.isHeldByCurrentThread();
        if (!autoCreated || deleted || accounting.depth() > 0 || attached > 0 || now - unusedSince < delay) {
            return false;
        }
        deleted = true;
        return true;
    }

    /** An administrator defined it: it is no longer deleted when unused. */
    void keep() {
        assert lock.isHeldByCurrentThread();
        autoCreated = false;
    }

    // ---- its end: entry points ----

    /** See {@link LocalQueue#clear}. */
    void clear() {
        queue.lock();
        try {
            List<QueuedMessage> waiting = new ArrayList<>();
            dispatch.unlinkAll(waiting);
            for (QueuedMessage m : waiting) {
                accounting.dropDepth(1); // the server stops: no event
                queue.letGo(m);
                m.release();
            }
            List<QueuedMessage> unwritten = new ArrayList<>();
            dropPaged(unwritten); // the pager deletes the page files as it closes
            unwritten.forEach(QueuedMessage::release);
        } finally {
            queue.unlock();
        }
    }

    /** See {@link LocalQueue#delete}. */
    int delete() {
        List<QueuedMessage> discarded = new ArrayList<>();
        long onDisk;
        boolean persistentPaged;
        queue.lock();
        try {
            deleted = true;
            accounting.wakeHeldBack(); // a deleted queue holds nobody back
            unlinkAll(discarded);
            persistentPaged = paging.anyPersistent();
            onDisk = dropPaged(discarded);
        } finally {
            queue.unlock();
        }
        forget(discarded, StoreCompletion.NONE);
        if (onDisk > 0) {
            paging.forgetStoreLater(persistentPaged, StoreCompletion.NONE);
        }
        return (int) Math.min(Integer.MAX_VALUE, discarded.size() + onDisk);
    }

    /** See {@link LocalQueue#retire}. */
    Retirement retire(boolean force, StoreCompletion removed) {
        List<QueuedMessage> discarded = new ArrayList<>();
        List<QueueConsumer> left = new ArrayList<>();
        long onDisk;
        boolean persistentPaged;
        long depthBefore;
        int consumers;
        int browsers;
        queue.lock();
        try {
            depthBefore = accounting.depth();
            consumers = dispatch.consumerCount();
            browsers = attached - consumers;
            if (!force && (depthBefore > 0 || attached > 0)) {
                return new Retirement(false, depthBefore, consumers, browsers, 0, List.of());
            }
            deleted = true;
            retired = true;
            accounting.wakeHeldBack(); // a deleted queue holds nobody back
            unlinkAll(discarded);
            persistentPaged = paging.anyPersistent();
            onDisk = dropPaged(discarded);
            dispatch.addConsumersTo(left);
        } finally {
            queue.unlock(); // wakes producers waiting for this queue's budget: a deleted queue holds nobody back
        }
        StoreCompletion whenRemoved = onDisk == 0 ? removed : Persistence.countdown(2, removed);
        forget(discarded, whenRemoved);
        if (onDisk > 0) {
            paging.forgetStoreLater(persistentPaged, whenRemoved);
        }
        return new Retirement(true, depthBefore, consumers, browsers,
                (int) Math.min(Integer.MAX_VALUE, discarded.size() + onDisk), left);
    }

    /** Removes messages taken off a deleted queue from the store ({@code removed} runs then) and releases them. */
    private void forget(List<QueuedMessage> discarded, StoreCompletion removed) {
        persistence.remove(discarded, removed);
        discarded.forEach(QueuedMessage::release);
    }

    /** Takes every waiting message off the lists (and out of the depth and the memory budgets) into {@code out}. */
    private void unlinkAll(List<QueuedMessage> out) {
        int first = out.size();
        dispatch.unlinkAll(out);
        for (int i = first; i < out.size(); i++) {
            accounting.lowerDepth();
            queue.letGo(out.get(i));
        }
    }

    /**
     * The queue is deleted or the server stops: its paged messages leave the depth and the disk budgets, and those
     * not written yet go to {@code out}, out of the memory budgets too (as {@link #unlinkAll} does). Under the lock.
     *
     * @return how many were on disk (the paging thread forgets them: {@link QueuePager#forgetStoreLater})
     */
    private long dropPaged(List<QueuedMessage> out) {
        if (!paging.hasPaged()) {
            return 0;
        }
        int first = out.size();
        long onDisk = paging.drop(out);
        for (int i = first; i < out.size(); i++) {
            accounting.dropDepth(1);
            queue.letGo(out.get(i));
        }
        accounting.dropDepth(onDisk);
        noteIfUnused();
        return onDisk;
    }
}
