/**
 * Message flows hosted in the server (module {@code server/flow-host}): {@link org.wharfmq.server.flow.FlowHost}, a
 * plugin of the broker ({@link org.wharfmq.server.ServerPlugin}), deploys flow jars (each in a class loader of its
 * own), and the flows of the configuration ({@link org.wharfmq.server.flow.FlowConfig}), and runs them over the in-VM
 * transport; {@link org.wharfmq.server.flow.AdminResponder} serves {@code wharf flow deploy|undeploy|list|stats|trace}
 * (and {@code wharf topic list}) on the command queue {@code SYSTEM.ADMIN.COMMAND.QUEUE}.
 */
package org.wharfmq.server.flow;
