/**
 * The queue manager's settings and their validation; the command line reads them from YAML
 * ({@code config/wharf.yaml}).
 */
package org.wharfmq.server.config;
