package org.wharfmq.server.flow;

import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.Setting;
import org.wharfmq.server.config.SettingValues;
import org.wharfmq.server.config.SettingsEntry;
import org.wharfmq.server.config.Settings;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A message flow the {@link FlowHost} deploys when the server starts: an entry under {@code flows} in the
 * configuration. It holds the value of each key of {@link FlowHostConfiguration.FlowEntry} ({@link #get}): a new key
 * of a flow's entry is its declaration there, its paragraph in config/wharf.yaml and the code that reads it. Immutable.
 */
public final class FlowConfig extends SettingsEntry<FlowConfig> {

    /** The keys of an entry ({@link FlowHostConfiguration.FlowEntry}), in declaration order: found once. */
    private static final List<Setting<?>> KEYS = Setting.declaredIn(FlowHostConfiguration.FlowEntry.class);

    private FlowConfig(SettingValues values) {
        super(values);
    }

    @Override
    protected FlowConfig of(SettingValues values) {
        return new FlowConfig(values);
    }

    /**
     * A flow, its other keys at their defaults.
     *
     * @param jar       the flow jar (a relative path is relative to the working directory)
     * @param className the jar's {@code org.wharfmq.flow.FlowFactory} class (YAML key {@code class})
     * @param instances threads per input node, null for the default ({@link FlowHostConfiguration.FlowEntry#INSTANCES})
     */
    public FlowConfig(String jar, String className, Integer instances) {
        this(SettingValues.defaults("", KEYS).with(FlowHostConfiguration.FlowEntry.JAR, jar)
                .with(FlowHostConfiguration.FlowEntry.CLASS, className)
                .with(FlowHostConfiguration.FlowEntry.INSTANCES, instances == null
                        ? FlowHostConfiguration.FlowEntry.INSTANCES.defaultValue() : instances));
    }

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
            SettingValues values = readEntry(entry, KEYS);
            flows.add(new FlowConfig(values.named(owner(values.get(FlowHostConfiguration.FlowEntry.CLASS),
                    entry.path())).check()));
        }
        return flows;
    }

    /** The flow jar (a relative path is relative to the working directory). */
    public String jar() {
        return get(FlowHostConfiguration.FlowEntry.JAR);
    }

    /** The jar's {@code org.wharfmq.flow.FlowFactory} class (YAML key {@code class}). */
    public String className() {
        return get(FlowHostConfiguration.FlowEntry.CLASS);
    }

    /** Threads per input node ({@link FlowHostConfiguration.FlowEntry#INSTANCES}). */
    public int instanceCount() {
        return get(FlowHostConfiguration.FlowEntry.INSTANCES);
    }

    /** The texts by name its factory reads ({@link FlowHostConfiguration.FlowEntry#PROPERTIES}): none by default. */
    public Map<String, String> properties() {
        return get(FlowHostConfiguration.FlowEntry.PROPERTIES);
    }

    /** A flow as errors name it: {@code flow org.example.Orders}, or {@code unnamed} without a class. */
    private static String owner(String className, String unnamed) {
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
            f.values().named(owner(f.className(), "flows")).check();
        }
    }

    /** {@code flow org.example.Orders [jar=orders.jar, class=org.example.Orders, instances=1]}. */
    @Override
    public String toString() {
        return owner(className(), "flow") + " " + values();
    }
}
