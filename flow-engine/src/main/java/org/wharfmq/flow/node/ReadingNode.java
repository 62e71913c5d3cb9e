package org.wharfmq.flow.node;

import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.TransactionMode;

import java.util.List;

/**
 * What every node that reads messages into a flow ({@link InputNode}, {@link JmsInputNode}, {@link FileInputNode})
 * is set with: the domain that owns each body (default BLOB), the transaction mode (default YES) and the backout
 * threshold, how many deliveries a failing message gets before it takes the backout path (default 3).
 *
 * @param <N> the node's own type, which the setters return
 */
public abstract class ReadingNode<N extends ReadingNode<N>> extends Node {

    /** Default backout threshold: a failing message is tried this many times. */
    public static final int DEFAULT_BACKOUT_THRESHOLD = 3;

    private Domain domain = Domain.BLOB;
    private TransactionMode transactionMode = TransactionMode.YES;
    private int backoutThreshold = DEFAULT_BACKOUT_THRESHOLD;

    protected ReadingNode(String kind, List<String> inputTerminals, List<String> outputTerminals) {
        super(kind, inputTerminals, outputTerminals);
    }

    /** Sets the domain that owns the body. */
    public N domain(Domain domain) {
        this.domain = domain;
        return self();
    }

    /** Sets the transaction mode. */
    public N transactionMode(TransactionMode mode) {
        this.transactionMode = mode;
        return self();
    }

    /** Sets how many deliveries a failing message gets before it is backed out (at least 1). */
    public N backoutThreshold(int threshold) {
        this.backoutThreshold = threshold;
        return self();
    }

    /** The body's domain. */
    public Domain domain() {
        return domain;
    }

    /** The transaction mode. */
    public TransactionMode transactionMode() {
        return transactionMode;
    }

    /** Deliveries a failing message gets. */
    public int backoutThreshold() {
        return backoutThreshold;
    }

    /** Refuses a missing domain or transaction mode and a backout threshold below 1. */
    protected void validateReading() {
        if (domain == null || transactionMode == null) {
            throw new FlowValidationException("a " + kind() + " node's domain and transactionMode must not be null.");
        }
        if (backoutThreshold < 1) {
            throw new FlowValidationException("backoutThreshold must be at least 1, was " + backoutThreshold + ".");
        }
    }

    @SuppressWarnings("unchecked")
    private N self() {
        return (N) this;
    }
}
