package org.wharfmq.flow;

/**
 * Transaction control of an input node (and the override of an output node), with the semantics of MQSeries
 * Integrator's MQInput node: under transaction control the input get and every output of one invocation commit
 * or roll back together.
 */
public enum TransactionMode {
    /** The invocation runs in a transaction (for an output node: put in the transaction whatever the flow does). */
    YES,
    /** No transaction: the input message is consumed on receipt and outputs are visible at once. */
    NO,
    /**
     * Input node: transactional when the input message is persistent. Output node: follow the flow's decision.
     */
    AUTOMATIC
}
