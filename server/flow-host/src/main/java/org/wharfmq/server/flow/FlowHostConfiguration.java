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

    private FlowHostConfiguration() {
    }
}
