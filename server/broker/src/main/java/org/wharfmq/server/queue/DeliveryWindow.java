package org.wharfmq.server.queue;

/**
 * A consumer's credit: how many more messages the server may push to it before the client asks for more
 * (CREATE_CONSUMER's {@code credit}, topped up by CREDIT frames). Guarded by the lock of the consumer's queue,
 * because the queue spends the credit while it hands out messages.
 */
public final class DeliveryWindow {

    private final int initialCredit;
    private int credit;

    /** @param initialCredit the prefetch window the consumer was created with; negative counts as 0 */
    public DeliveryWindow(int initialCredit) {
        this.initialCredit = Math.max(0, initialCredit);
        this.credit = this.initialCredit;
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
        credit = initialCredit;
    }
}
