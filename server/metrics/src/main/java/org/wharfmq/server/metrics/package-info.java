/**
 * The queue manager's metrics through Micrometer ({@link org.wharfmq.server.metrics.MetricsPlugin}): Prometheus text
 * at {@code /metrics} on the HTTP listener, and JMX. docs/operations.md, "Metrics".
 */
package org.wharfmq.server.metrics;
