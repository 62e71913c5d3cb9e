package org.wharfmq.server.flow;

import org.wharfmq.server.config.ConfigurationException;
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
     * Reads the configuration's {@code flows:} list, each entry's keys {@code jar}, {@code class} and
     * {@code instances} (checked by {@link FlowHostSettings}).
     *
     * @throws ConfigurationException naming the entry and the key that is unknown or wrong
     */
    public static List<FlowConfig> read(Settings file) {
        List<FlowConfig> flows = new ArrayList<>();
        for (Settings entry : file.sections("flows")) {
            flows.add(new FlowConfig(FlowHostConfiguration.FlowEntry.JAR.read(entry),
                    FlowHostConfiguration.FlowEntry.CLASS.read(entry),
                    entry.intOrNull(FlowHostConfiguration.FlowEntry.INSTANCES.key()))); // null: not given
            entry.refuseUnknown();
        }
        return flows;
    }

    /** Threads per input node ({@link FlowHostConfiguration.FlowEntry#INSTANCES}'s default when not set). */
    public int instanceCount() {
        return instances == null ? FlowHostConfiguration.FlowEntry.INSTANCES.defaultValue() : instances;
    }

    /**
     * Checks every entry has a jar and a class and at least one instance.
     *
     * @throws ConfigurationException naming the first entry that is wrong
     */
    public static void validate(List<FlowConfig> flows) {
        for (int i = 0; i < flows.size(); i++) {
            FlowConfig f = flows.get(i);
            if (f == null || f.jar() == null || f.jar().isBlank() || f.className() == null || f.className().isBlank()) {
                throw new ConfigurationException("Flow number " + (i + 1) + " under 'flows' needs a jar and a class.");
            }
            if (f.instanceCount() < 1) {
                throw new ConfigurationException("Setting instances of flow " + f.className() + " must be at least 1, was "
                        + f.instanceCount() + ".");
            }
        }
    }
}
