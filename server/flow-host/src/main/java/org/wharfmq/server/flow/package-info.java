/**
 * Message flows hosted in the server (module {@code server/flow-host}): {@link org.wharfmq.server.flow.FlowHost}, a
 * plugin of the broker ({@link org.wharfmq.server.ServerPlugin}), deploys flow jars (each in a class loader of its
 * own), and the flows of the configuration ({@link org.wharfmq.server.flow.FlowConfig}), and runs them over the in-VM
 * transport, with the configuration's data sources ({@link org.wharfmq.server.flow.DataSourceConfig}, HikariCP pools
 * in {@link org.wharfmq.server.flow.DataSourcePools}) for their Database nodes; {@link org.wharfmq.server.flow.FlowCommands} are its admin commands ({@code wharf flow
 * deploy|undeploy|list|stats|trace}), which the admin plugin serves on {@code SYSTEM.ADMIN.COMMAND.QUEUE}.
 */
package org.wharfmq.server.flow;
