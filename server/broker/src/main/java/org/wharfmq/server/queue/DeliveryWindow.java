package org.wharfmq.server.queue;

import org.wharfmq.server.Configuration;

/**
 * A consumer's credit: how many more messages the server may push to it before the client asks for more
 * (CREATE_CONSUMER's {@code credit}, topped up by CREDIT frames), and for a consumer that says so, how many bytes of
 * messages it may hold handed over and not yet settled ({@code maxHeldBytes}: it is handed one more only while it
 * holds fewer, so at most one message beyond them, and always at least one): a consumer inside the queue manager
 * ({@link QueuedMessage#memoryBytes}), or a client's with a window in bytes ({@link #ofClient}: the messages' encoded
 * lengths, which its CREDIT frames settle). Settling more than is held settles what is held: a client that returns
 * more bytes than it was sent gets no wider window. Guarded by the lock of the consumer's queue, because the queue
 * spends the credit while it hands out messages.
 */
public final class DeliveryWindow {

    private final int initialCredit;
    /** {@link Long#MAX_VALUE}: no bound (a client's consumer that asked for no window in bytes: its credit alone). */
    private final long maxHeldBytes;
    private int credit;
    /**
     * What each message counts less than its {@link QueuedMessage#memoryBytes}: 0, or for a client's window the
     * server's own objects for it ({@link Configuration#MESSAGE_OVERHEAD_BYTES}), so that it counts its encoded length.
     */
    private final int uncountedPerMessage;
    /** The bytes handed over and not yet settled; counted only when bounded. */
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
        this(initialCredit, stopped, maxHeldBytes, 0);
    }

    private DeliveryWindow(int initialCredit, boolean stopped, long maxHeldBytes, int uncountedPerMessage) {
        this.maxHeldBytes = maxHeldBytes;
        this.uncountedPerMessage = uncountedPerMessage;
        this.initialCredit = Math.max(0, initialCredit);
        this.stopped = stopped;
        this.credit = stopped ? 0 : this.initialCredit;
    }

    /**
     * The window of a client's consumer that asked for one in bytes (CREATE_CONSUMER's {@code windowBytes}, capped by
     * the server's maxConsumerWindowBytes): at most {@code windowBytes} of messages' encoded lengths, the lengths its
     * DELIVERs carry and its CREDITs settle, held and not settled (and one message beyond).
     */
    public static DeliveryWindow ofClient(int initialCredit, boolean stopped, long windowBytes) {
        return new DeliveryWindow(initialCredit, stopped, windowBytes, Configuration.MESSAGE_OVERHEAD_BYTES);
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
            heldBytes += Math.max(0, bytes - uncountedPerMessage);
        }
    }

    /** Messages of {@code bytes} in all, handed over, have been settled: no longer held (never fewer than none). */
    void settle(long bytes) {
        if (maxHeldBytes != Long.MAX_VALUE) {
            heldBytes = Math.max(0, heldBytes - bytes);
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
