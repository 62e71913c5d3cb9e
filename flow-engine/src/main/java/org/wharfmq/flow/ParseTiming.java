package org.wharfmq.flow;

/**
 * When an input message's XML body is parsed (an input node's {@code parseTiming}, after IBM Integration Bus's
 * property of the same name).
 */
public enum ParseTiming {
    /**
     * The whole body, the first time a node reads the tree; a body that is not well-formed anywhere fails there.
     * The default.
     */
    COMPLETE,
    /**
     * As COMPLETE, except that a filter or route condition of the form {@code /A/B} or {@code /A/B = 'text'}
     * ({@link XPathQuery#test}), while no node has built the tree, reads the body only until its answer is known,
     * building no tree: a condition on an element near the start costs what the bytes before it cost. The price:
     * a fault in the part not read is not detected, and a message with one may pass the condition and leave as it
     * came (a node that reads the tree still parses all of it and fails).
     */
    ON_DEMAND
}
