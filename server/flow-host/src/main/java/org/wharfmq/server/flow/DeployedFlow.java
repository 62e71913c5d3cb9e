package org.wharfmq.server.flow;

import org.wharfmq.flow.runtime.FlowJar;
import org.wharfmq.flow.runtime.RunningFlow;

import java.nio.file.Path;

/**
 * A flow the host runs.
 *
 * @param name      the flow's name (from its definition)
 * @param className the FlowFactory class
 * @param jar       the jar and its class loader; null for a flow built from the server's own class path
 *                  ({@link FlowHost#deploy(org.wharfmq.flow.FlowFactory, int)})
 * @param record    the deployment record of a flow deployed with {@code wharf flow deploy} (the flow is redeployed
 *                  at start; record and jar are deleted when it is undeployed or replaced), else null
 * @param running   the running flow
 */
public record DeployedFlow(String name, String className, FlowJar jar, Path record, RunningFlow running) {

    /** One line for {@code wharf flow list}. */
    public String describe() {
        return name + "  class " + className + "  jar " + (jar == null ? "(server class path)" : jar.path())
                + "  instances " + running.instances() + "  nodes " + running.definition().nodes().size()
                + "  trace " + (running.traceEnabled() ? "on" : "off")
                + "  timing " + (running.statistics().timing() ? "on" : "off")
                + (record == null ? "" : "  kept across restarts");
    }
}
