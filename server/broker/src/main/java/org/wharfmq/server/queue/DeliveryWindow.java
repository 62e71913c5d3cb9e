package org.wharfmq.server.queue;

/**
 * A consumer's credit: how many more messages the server may push to it before the client asks for more
 * (CREATE_CONSUMER's {@code credit}, topped up by CREDIT frames). Guarded by the lock of the consumer's queue,
 * because the queue spends the credit while it hands out messages.
 */
public final class DeliveryWindow {

    private final int initialCredit;
    private int credit;
    /** No CREDIT has come since the consumer was created for a stopped connection: a rollback restores nothing. */
    private boolean stopped;

    /**
     * @param initialCredit the prefetch window the consumer was created with; negative counts as 0
     * @param stopped       the client's connection is stopped: no credit until the client sends its window as CREDIT
     *                      ({@link org.wharfmq.protocol.frame.Frame#CONSUMER_STOPPED})
     */
    public DeliveryWindow(int initialCredit, boolean stopped) {
        this.initialCredit = Math.max(0, initialCredit);
        this.stopped = stopped;
        this.credit = stopped ? 0 : this.initialCredit;
    }

    /** Messages that may still be pushed; below zero after PULLs beyond the window, until credit comes back. */
    public int credit() {
        return credit;
    }

    boolean hasCredit() {
        return credit > 0;
    }

    void spend() {
        credit--;
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
        credit = stopped ? 0 : initialCredit;
    }
}
