package org.wharfmq.server.flow;

import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.SettingValues;
import org.wharfmq.server.config.Settings;

import java.util.ArrayList;
import java.util.List;

/**
 * A message flow the {@link FlowHost} deploys when the server starts: an entry under {@code flows} in the
 * configuration.
 *
 * @param jar       the flow jar (a relative path is relative to the working directory)
 * @param className the jar's {@code org.wharfmq.flow.FlowFactory} class (YAML key {@code class})
 * @param instances threads per input node, null for the default ({@link FlowHostConfiguration.FlowEntry#INSTANCES})
 */
public record FlowConfig(String jar, String className, Integer instances) {

    /**
     * Reads the configuration's {@code flows:} list, each entry's keys ({@link FlowHostConfiguration.FlowEntry}), and
     * checks each against its rules, naming the file and its line (that every entry has a jar and a class is
     * {@link #validate}'s).
     *
     * @throws ConfigurationException naming the entry and the key that is unknown or wrong
     */
    public static List<FlowConfig> read(Settings file) {
        List<FlowConfig> flows = new ArrayList<>();
        for (Settings entry : file.sections("flows")) {
            SettingValues values = SettingValues.ofEntry(entry, FlowHostConfiguration.FlowEntry.class);
            entry.refuseUnknown();
            FlowConfig flow = new FlowConfig(values.get(FlowHostConfiguration.FlowEntry.JAR),
                    values.get(FlowHostConfiguration.FlowEntry.CLASS),
                    values.given(FlowHostConfiguration.FlowEntry.INSTANCES) // null: not given
                            ? values.get(FlowHostConfiguration.FlowEntry.INSTANCES) : null);
            values.named(flow.owner(entry.path())).check();
            flows.add(flow);
        }
        return flows;
    }

    /** Threads per input node ({@link FlowHostConfiguration.FlowEntry#INSTANCES}'s default when not set). */
    public int instanceCount() {
        return instances == null ? FlowHostConfiguration.FlowEntry.INSTANCES.defaultValue() : instances;
    }

    /** This flow as errors name it: {@code flow org.example.Orders}, or {@code unnamed} without a class. */
    private String owner(String unnamed) {
        return className == null || className.isBlank() ? unnamed : "flow " + className;
    }

    /**
     * Checks every entry has a jar and a class, and its settings keep their rules
     * ({@link FlowHostConfiguration.FlowEntry}).
     *
     * @throws ConfigurationException naming the first entry that is wrong
     */
    public static void validate(List<FlowConfig> flows) {
        for (int i = 0; i < flows.size(); i++) {
            FlowConfig f = flows.get(i);
            if (f == null || f.jar() == null || f.jar().isBlank() || f.className() == null || f.className().isBlank()) {
                throw new ConfigurationException("Flow number " + (i + 1) + " under 'flows' needs a jar and a class.");
            }
            SettingValues.defaults("", FlowHostConfiguration.FlowEntry.class).named(f.owner("flows"))
                    .with(FlowHostConfiguration.FlowEntry.JAR, f.jar())
                    .with(FlowHostConfiguration.FlowEntry.CLASS, f.className())
                    .with(FlowHostConfiguration.FlowEntry.INSTANCES, f.instanceCount()).check();
        }
    }
}
