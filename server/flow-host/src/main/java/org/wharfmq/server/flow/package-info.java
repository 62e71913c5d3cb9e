/**
 * Message flows hosted in the server: {@link org.wharfmq.server.flow.FlowHost} deploys flow jars (each in a class
 * loader of its own) and runs them over the in-VM transport; {@link org.wharfmq.server.flow.AdminResponder}
 * serves {@code wharf flow deploy|undeploy|list|stats|trace} on the command queue
 * {@code SYSTEM.ADMIN.COMMAND.QUEUE}.
 */
package org.wharfmq.server.flow;
