package org.wharfmq.flow;

/**
 * The entry point of a flow jar: the class named in {@code config/wharf.yaml} (or in {@code wharf flow deploy})
 * implements this and has a public no-argument constructor. The server calls {@link #create(FlowProperties)} once per
 * deployment, which builds the flow with {@link #create()} unless the factory overrides it: a flow that takes
 * settings from where it is deployed (its configuration entry's {@code properties:}, the server's HTTP listener)
 * overrides it, and its {@code create()} builds it as outside a server, {@code create(FlowProperties.NONE)}.
 */
@FunctionalInterface
public interface FlowFactory {

    /** Builds the flow (validated by {@link FlowDefinition.Builder#build()}). */
    FlowDefinition create();

    /**
     * Builds the flow with what its deployment says (validated by {@link FlowDefinition.Builder#build()}); by default
     * {@link #create()}, which ignores it.
     */
    default FlowDefinition create(FlowProperties properties) {
        return create();
    }
}
