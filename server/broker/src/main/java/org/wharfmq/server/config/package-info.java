/**
 * The queue manager's settings and their validation, and the way every component reads its part of the
 * configuration file: a {@link org.wharfmq.server.config.Settings} tree the command line reads from YAML
 * ({@code config/wharf.yaml}), handed to each component's {@link org.wharfmq.server.config.SettingsSection}.
 */
package org.wharfmq.server.config;
