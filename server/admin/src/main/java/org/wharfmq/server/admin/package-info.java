/**
 * The admin command queue: {@link org.wharfmq.server.admin.AdminPlugin} serves {@code SYSTEM.ADMIN.COMMAND.QUEUE}
 * over the broker's management view and answers each command in JSON; other plugins add commands of their own
 * ({@link org.wharfmq.server.admin.AdminCommands}, the flow host's {@code deploy}, {@code list}, ...). The wire
 * contract is {@link org.wharfmq.server.admin.AdminProtocol}; the command line ({@code wharf admin}, {@code wharf
 * flow}, {@code wharf topic list}) is its client.
 */
package org.wharfmq.server.admin;
