package org.wharfmq.server.flow;

import org.wharfmq.flow.runtime.FlowJar;
import org.wharfmq.flow.runtime.RunningFlow;

/**
 * A flow the host runs.
 *
 * @param name      the flow's name (from its definition)
 * @param className the jar's FlowFactory class
 * @param jar       the jar and its class loader
 * @param uploaded  whether the jar file was written by {@code wharf flow deploy} (deleted when the flow goes)
 * @param running   the running flow
 */
public record DeployedFlow(String name, String className, FlowJar jar, boolean uploaded, RunningFlow running) {

    /** One line for {@code wharf flow list}. */
    public String describe() {
        return name + "  class " + className + "  jar " + jar.path() + "  instances " + running.instances()
                + "  nodes " + running.definition().nodes().size() + "  trace " + (running.traceEnabled() ? "on" : "off")
                + "  timing " + (running.statistics().timing() ? "on" : "off");
    }
}
