package org.wharfmq.server.flow;

import org.wharfmq.flow.runtime.FlowStatistics;
import org.wharfmq.server.admin.AdminCommand;
import org.wharfmq.server.admin.AdminCommands;
import org.wharfmq.server.admin.AdminRequest;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The flow host's admin commands, served by the admin plugin ({@code org.wharfmq.server.admin.AdminPlugin}) on the
 * admin command queue: {@code deploy} (a BytesMessage whose body is the jar; properties {@value #CLASS},
 * {@value #INSTANCES}, {@value #JAR_NAME}; refused unless the setting {@code remoteDeploy} is on, see
 * {@link FlowHost}), {@code undeploy} ({@value #FLOW}), {@code list}, {@code stats} (optional {@value #FLOW}; optional
 * {@value #SWITCH} to turn timing on or off), {@code trace} ({@value #FLOW} and {@value #SWITCH}). Each answers text,
 * which {@code wharf flow} prints as it is.
 */
public final class FlowCommands implements AdminCommands {

    /** Request property: the flow's name. */
    public static final String FLOW = "WharfFlow";
    /** Request property: the FlowFactory class (deploy). */
    public static final String CLASS = "WharfClass";
    /** Request property: instances per input node (deploy). */
    public static final String INSTANCES = "WharfInstances";
    /** Request property: the jar's file name (deploy). */
    public static final String JAR_NAME = "WharfJarName";
    /** Request property: on/off for trace and stats timing. */
    public static final String SWITCH = "WharfSwitch";

    private final FlowHost host;

    FlowCommands(FlowHost host) {
        this.host = host;
    }

    @Override
    public Map<String, AdminCommand> commands() {
        Map<String, AdminCommand> commands = new LinkedHashMap<>();
        commands.put("deploy", this::deploy);
        commands.put("undeploy", r -> {
            String flow = r.required(FLOW, "a flow name");
            if (!host.undeploy(flow)) {
                throw notDeployed(flow);
            }
            return "Undeployed " + flow;
        });
        commands.put("list", r -> {
            List<DeployedFlow> flows = host.flows();
            StringBuilder sb = new StringBuilder();
            flows.forEach(f -> sb.append(f.describe()).append('\n'));
            return flows.isEmpty() ? "No flows deployed." : sb.toString().stripTrailing();
        });
        commands.put("stats", r -> {
            String flow = r.string(FLOW);
            boolean switching = r.string(SWITCH) != null;
            boolean on = r.flag(SWITCH);
            StringBuilder sb = new StringBuilder();
            for (DeployedFlow f : flow == null ? host.flows() : List.of(deployed(flow))) {
                FlowStatistics stats = f.running().statistics();
                if (switching) {
                    stats.timing(on);
                }
                sb.append(stats.render(f.name()));
            }
            return sb.length() == 0 ? "No flows deployed." : sb.toString().stripTrailing();
        });
        commands.put("trace", r -> {
            String flow = r.required(FLOW, "a flow name");
            String onOff = r.required(SWITCH, "on or off");
            deployed(flow).running().trace(r.flag(SWITCH));
            return "Trace of flow " + flow + " " + onOff;
        });
        return commands;
    }

    private Object deploy(AdminRequest r) throws Exception {
        if (r.body() == null) {
            throw new IllegalArgumentException("deploy needs the jar as a BytesMessage body.");
        }
        Long instances = r.number(INSTANCES);
        DeployedFlow deployed = host.deployUpload(r.body(), r.string(JAR_NAME),
                r.required(CLASS, "the jar's FlowFactory class"), instances == null ? 1 : instances.intValue());
        return "Deployed " + deployed.describe();
    }

    private DeployedFlow deployed(String name) {
        DeployedFlow flow = host.flow(name);
        if (flow == null) {
            throw notDeployed(name);
        }
        return flow;
    }

    /** The refusal of a command on a flow that is not deployed: it names where the deployed flows are listed. */
    private static IllegalArgumentException notDeployed(String name) {
        return new IllegalArgumentException("No flow named '" + name + "' is deployed ('wharf flow list' lists the"
                + " deployed flows).");
    }

    @Override
    public String toString() {
        return "the flow host";
    }
}
