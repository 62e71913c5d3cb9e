package org.wharfmq.server.flow;

/**
 * The flow host's defaults, each named after the key of config/wharf.yaml it is the default for
 * ({@link FlowHostSettings}; docs/flows.md).
 */
public final class FlowHostConfiguration {

    /**
     * Whether {@code wharf flow deploy} may send a flow jar over the wire for the server to run (setting
     * remoteDeploy): {@value}. Anyone with the admin permission could then run code in the server; flows are
     * deployed from the configuration ({@code flows:}) instead.
     */
    public static final boolean DEFAULT_REMOTE_DEPLOY = false;

    /** Threads per input node of a configured flow that does not set {@code instances}: {@value}. */
    public static final int DEFAULT_INSTANCES = 1;

    /**
     * The most connections a data source's pool opens at once, when its entry under {@code dataSources} does not set
     * {@code poolSize}: {@value}. An invocation holds at most one connection per data source, from its first
     * statement to its commit, so a pool as large as the instances of the flows using it never makes them wait.
     */
    public static final int DEFAULT_POOL_SIZE = 10;

    /**
     * How long an invocation waits for a connection from a data source's pool (all in use, or the database not
     * answering) before its Database node fails, in ms, when the entry does not set {@code connectionTimeoutMillis}:
     * {@value}.
     */
    public static final long DEFAULT_CONNECTION_TIMEOUT_MILLIS = 5_000;

    /**
     * Seconds between the transaction manager's recovery scans (coordinated flows: docs/flows.md, "Coordinated
     * transactions"), after the one at start: {@value}. A branch left in doubt by a lost connection (not a crash,
     * whose branches the scan at start settles) waits up to this long.
     */
    public static final int RECOVERY_PERIOD_SECONDS = 120;

    /**
     * Seconds between a recovery scan's two passes (the branches the resources list, then the settling of those no
     * transaction in the log claims): {@value}. It lengthens the server's start by as much when a data source is XA.
     */
    public static final int RECOVERY_BACKOFF_SECONDS = 1;

    private FlowHostConfiguration() {
    }
}
