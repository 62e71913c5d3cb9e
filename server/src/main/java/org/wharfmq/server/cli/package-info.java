/** The {@code wharf} command line (picocli): {@code wharf server}, {@code wharf version}. */
package org.wharfmq.server.cli;
