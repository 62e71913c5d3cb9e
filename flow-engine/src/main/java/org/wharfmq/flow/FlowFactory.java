package org.wharfmq.flow;

/**
 * The entry point of a flow jar: the class named in {@code config/wharf.yaml} (or in {@code wharf flow deploy})
 * implements this and has a public no-argument constructor. The server calls {@link #create()} once per
 * deployment.
 */
public interface FlowFactory {

    /** Builds the flow (validated by {@link FlowDefinition.Builder#build()}). */
    FlowDefinition create();
}
