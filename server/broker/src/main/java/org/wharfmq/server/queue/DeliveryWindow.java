package org.wharfmq.server.queue;

/**
 * A consumer's credit: how many more messages the server may push to it before the client asks for more
 * (CREATE_CONSUMER's {@code credit}, topped up by CREDIT frames), and for a consumer inside the queue manager that
 * says so, how many bytes of messages it may hold handed over and not yet settled ({@code maxHeldBytes}: it is handed
 * one more only while it holds fewer, so at most one message beyond them). Guarded by the lock of the consumer's
 * queue, because the queue spends the credit while it hands out messages.
 */
public final class DeliveryWindow {

    private final int initialCredit;
    /** {@link Long#MAX_VALUE}: no bound (a connection's consumer, whose client bounds what it holds by its credit). */
    private final long maxHeldBytes;
    private int credit;
    /** The bytes ({@link QueuedMessage#memoryBytes}) handed over and not yet settled; counted only when bounded. */
    private long heldBytes;
    /** No CREDIT has come since the consumer was created for a stopped connection: a rollback restores nothing. */
    private boolean stopped;

    /**
     * @param initialCredit the prefetch window the consumer was created with; negative counts as 0
     * @param stopped       the client's connection is stopped: no credit until the client sends its window as CREDIT
     *                      ({@link org.wharfmq.protocol.frame.Frame#CONSUMER_STOPPED})
     */
    public DeliveryWindow(int initialCredit, boolean stopped) {
        this(initialCredit, stopped, Long.MAX_VALUE);
    }

    /**
     * @param maxHeldBytes the bytes of messages handed over and not settled ({@link #settle}) past which no more is
     *                     handed over; {@link Long#MAX_VALUE}: no bound
     */
    public DeliveryWindow(int initialCredit, boolean stopped, long maxHeldBytes) {
        this.maxHeldBytes = maxHeldBytes;
        this.initialCredit = Math.max(0, initialCredit);
        this.stopped = stopped;
        this.credit = stopped ? 0 : this.initialCredit;
    }

    /** Messages that may still be pushed; below zero after PULLs beyond the window, until credit comes back. */
    public int credit() {
        return credit;
    }

    boolean hasCredit() {
        return credit > 0 && heldBytes < maxHeldBytes;
    }

    /** A message of {@code bytes} ({@link QueuedMessage#memoryBytes}) handed over. */
    void spend(long bytes) {
        credit--;
        if (maxHeldBytes != Long.MAX_VALUE) {
            heldBytes += bytes;
        }
    }

    /** Messages of {@code bytes} in all, handed over, have been settled: no longer held. */
    void settle(long bytes) {
        if (maxHeldBytes != Long.MAX_VALUE) {
            heldBytes -= bytes;
        }
    }

    void add(int more) {
        stopped = false;
        if (more > 0) {
            long sum = (long) credit + more;
            credit = (int) Math.min(Integer.MAX_VALUE, sum);
        }
    }

    /** No pushes until {@link #reset()}: a rollback in progress must not send what the client would discard. */
    void suspend() {
        credit = 0;
    }

    void reset() {
        heldBytes = 0; // a rollback gave back everything handed over
        credit = stopped ? 0 : initialCredit;
    }
}
