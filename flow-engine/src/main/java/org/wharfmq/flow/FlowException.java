package org.wharfmq.flow;

/**
 * A failure inside a flow invocation, carrying the {@link ExceptionList} that describes it. The runtime wraps any
 * exception that leaves a node in one of these (once, at the node where it happened), so callers up the path
 * (TryCatch, the input node, backout) see where it came from. The Throw node raises one directly.
 */
public class FlowException extends Exception {

    private final transient ExceptionList exceptionList;

    /** A failure with its exception list and original cause (may be null). */
    public FlowException(String message, ExceptionList exceptionList, Throwable cause) {
        super(message, cause);
        this.exceptionList = exceptionList;
    }

    /** A failure raised by a node itself (e.g. the Throw node): the list is built by the runtime. */
    public FlowException(String message) {
        this(message, ExceptionList.EMPTY, null);
    }

    /** The nodes' account of the failure. */
    public ExceptionList exceptionList() {
        return exceptionList;
    }
}
