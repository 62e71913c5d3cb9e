package org.wharfmq.server;

import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link ReentrantLock} with its place in the {@link LockOrder}: while assertions are on, taking it out of order
 * fails. Its owner says what it guards; a class that runs under another's lock asserts
 * {@code lock.isHeldByCurrentThread()} where its comment says "under the lock".
 */
public final class OrderedLock extends ReentrantLock {

    private static final long serialVersionUID = 1L;

    private final LockOrder.Rank rank;
    private final String owner;

    /**
     * @param rank  its place in the order
     * @param owner what it belongs to, for the message of a violation ("queue 'ORDERS'")
     */
    public OrderedLock(LockOrder.Rank rank, String owner) {
        this.rank = rank;
        this.owner = owner;
    }

    /** Its place in the order. */
    public LockOrder.Rank rank() {
        return rank;
    }

    @Override
    public void lock() {
        assert LockOrder.acquiring(this);
        super.lock();
    }

    @Override
    public boolean tryLock() {
        if (!super.tryLock()) {
            return false;
        }
        assert LockOrder.acquiring(this);
        return true;
    }

    @Override
    public void unlock() {
        super.unlock();
        assert LockOrder.released(this);
    }

    @Override
    public String toString() {
        return "the lock of " + owner + " (" + rank + ")";
    }
}
