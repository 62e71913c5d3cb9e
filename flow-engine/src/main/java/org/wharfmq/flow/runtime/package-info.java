/**
 * The flow runtime over JMS: {@link org.wharfmq.flow.runtime.RunningFlow} runs a flow definition with any number
 * of instances (threads, each with its own connection and sessions) against any {@code ConnectionFactory}, in
 * the server (in-VM) or standalone; {@link org.wharfmq.flow.runtime.FlowJar} loads a flow jar in a class loader
 * of its own; {@link org.wharfmq.flow.runtime.FlowStatistics} counts per flow and node.
 */
package org.wharfmq.flow.runtime;
