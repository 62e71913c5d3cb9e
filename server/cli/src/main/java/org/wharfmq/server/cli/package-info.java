/**
 * The {@code wharf} command line (picocli): {@code wharf server}, {@code flow}, {@code topic}, {@code perf} (listed;
 * {@code bin/wharf} runs it from the perf harness's jar) and {@code version}.
 */
package org.wharfmq.server.cli;
