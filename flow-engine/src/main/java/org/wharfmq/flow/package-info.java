/**
 * The flow authoring API: {@link org.wharfmq.flow.FlowDefinition} and its builder, {@link org.wharfmq.flow.Node},
 * {@link org.wharfmq.flow.JavaComputeNode} for user logic, and the {@link org.wharfmq.flow.MessageAssembly} every
 * node receives. Built-in node types live in {@code org.wharfmq.flow.node}; the JMS runtime in
 * {@code org.wharfmq.flow.runtime}.
 */
package org.wharfmq.flow;
