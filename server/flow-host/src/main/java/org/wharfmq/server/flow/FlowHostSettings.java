package org.wharfmq.server.flow;

import org.wharfmq.flow.runtime.JmsProvider;
import org.wharfmq.server.config.ComponentSettings;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.Setting;
import org.wharfmq.server.config.SettingValues;
import org.wharfmq.server.config.Settings;
import org.wharfmq.server.config.SettingsSection;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The flow host's settings: its {@code flowHost:} block of config/wharf.yaml (docs/flows.md), the settings
 * {@link FlowHostConfiguration} declares ({@code remoteDeploy}, {@code user}, {@code password},
 * {@code fileDirectories}, {@code recoveryPeriodSeconds}), read, checked and shown here without a line of their own,
 * and the lists {@code flows:}, {@code dataSources:} and {@code jmsProviders:} at the file's top level. The block's keys were once top-level keys
 * ({@link #FORMER_KEYS}): those are still read, with a warning at start. Immutable.
 */
public final class FlowHostSettings extends ComponentSettings {

    /** The block's key in the file. */
    public static final String KEY = "flowHost";

    /** The block's keys that earlier versions read at the file's top level, each with its key in the block. */
    public static final Map<String, String> FORMER_KEYS = Map.of("remoteDeploy", "remoteDeploy", "flowHostUser",
            "user", "flowHostPassword", "password", "fileDirectories", "fileDirectories");

    /**
     * Reads the flow host's keys: its block (or its keys at their old places), and its lists.
     *
     * @see SettingsSection
     */
    public static final SettingsSection<FlowHostSettings> SECTION = file -> {
        List<FlowConfig> flows = FlowConfig.read(file);
        List<DataSourceConfig> dataSources = DataSourceConfig.read(file);
        List<JmsProvider> providers = JmsProviders.read(file);
        Settings block = file.section(KEY, FORMER_KEYS);
        SettingValues values = declared();
        if (block != null) {
            values = values.read(block);
            block.refuseUnknown();
        }
        return new FlowHostSettings(flows, dataSources, providers, values);
    };

    private final List<FlowConfig> flows;
    private final List<DataSourceConfig> dataSources;
    private final List<JmsProvider> jmsProviders;

    /**
     * Checks the flows, the data sources, the JMS providers, each setting, and that a user has a password.
     *
     * @throws ConfigurationException naming the setting that is wrong
     */
    private FlowHostSettings(List<FlowConfig> flows, List<DataSourceConfig> dataSources,
                             List<JmsProvider> jmsProviders, SettingValues values) {
        super(values);
        FlowConfig.validate(flows);
        this.flows = List.copyOf(flows);
        JmsProviders.validate(jmsProviders);
        this.jmsProviders = List.copyOf(jmsProviders);
        DataSourceConfig.validate(dataSources);
        this.dataSources = List.copyOf(dataSources);
        String user = values.get(FlowHostConfiguration.USER);
        String password = values.get(FlowHostConfiguration.PASSWORD);
        if (user != null && (password == null || password.isEmpty())) {
            throw new ConfigurationException("Setting flowHost.user '" + user + "' needs flowHost.password too"
                    + " (the flows log in as that user).");
        }
    }

    /** Every setting {@link FlowHostConfiguration} declares, at its default; in the {@code flowHost:} block. */
    private static SettingValues declared() {
        return SettingValues.defaults(KEY, FlowHostConfiguration.class);
    }

    /** No configured flows or data sources, anonymous in-VM, no deploying over the wire. */
    public static FlowHostSettings defaults() {
        return new FlowHostSettings(List.of(), List.of(), List.of(), declared());
    }

    /** These settings with {@code setting} at {@code value}. */
    public <T> FlowHostSettings with(Setting<T> setting, T value) {
        return new FlowHostSettings(flows, dataSources, jmsProviders, values().with(setting, value));
    }

    /** The flows deployed at startup, in order. */
    public List<FlowConfig> flows() {
        return flows;
    }

    /** The databases the flows may use, by name (each a connection pool). */
    public List<DataSourceConfig> dataSources() {
        return dataSources;
    }

    /**
     * The other JMS providers the flows' JMSInput and JMSOutput nodes may use, by name ({@code jmsProviders:};
     * {@link JmsProviders}).
     */
    public List<JmsProvider> jmsProviders() {
        return jmsProviders;
    }

    /**
     * The user the flows connect as (over the in-VM listener, by SCRAM-SHA-256 like any client), or null: they
     * connect anonymously in-VM, as the queue manager itself.
     */
    public String user() {
        return get(FlowHostConfiguration.USER);
    }

    /** The password of {@link #user()}; never shown by {@link #toString()} or {@link #shown()}. */
    public String password() {
        return get(FlowHostConfiguration.PASSWORD);
    }

    /** Whether flow jars sent over the wire ({@code wharf flow deploy}) are deployed (and kept ones restored). */
    public boolean remoteDeploy() {
        return get(FlowHostConfiguration.REMOTE_DEPLOY);
    }

    /**
     * The directories file nodes may read and write, with everything under them (absolute; relative names in
     * wharf.yaml are taken from its directory); empty: no flow may use files.
     */
    public List<Path> fileDirectories() {
        return get(FlowHostConfiguration.FILE_DIRECTORIES);
    }

    /** Seconds between the transaction manager's recovery scans (coordinated flows), after the one at start. */
    public int recoveryPeriodSeconds() {
        return get(FlowHostConfiguration.RECOVERY_PERIOD_SECONDS);
    }

    /** These settings with {@code flows} deployed at startup instead. */
    public FlowHostSettings withFlows(List<FlowConfig> flows) {
        return new FlowHostSettings(flows, dataSources, jmsProviders, values());
    }

    /** These settings with {@code dataSources} for the flows instead. */
    public FlowHostSettings withDataSources(List<DataSourceConfig> dataSources) {
        return new FlowHostSettings(flows, dataSources, jmsProviders, values());
    }

    /** These settings with the flows connecting as {@code user}. */
    public FlowHostSettings withUser(String user, String password) {
        return new FlowHostSettings(flows, dataSources, jmsProviders, values().with(FlowHostConfiguration.USER, user)
                .with(FlowHostConfiguration.PASSWORD, password));
    }

    /** These settings with deploying over the wire on or off. */
    public FlowHostSettings withRemoteDeploy(boolean remoteDeploy) {
        return with(FlowHostConfiguration.REMOTE_DEPLOY, remoteDeploy);
    }

    /** These settings with file nodes allowed in {@code directories} (and everything under them). */
    public FlowHostSettings withFileDirectories(List<Path> directories) {
        return with(FlowHostConfiguration.FILE_DIRECTORIES, List.copyOf(directories));
    }

    /** These settings with {@code providers} for the flows' JMSInput and JMSOutput nodes instead. */
    public FlowHostSettings withJmsProviders(List<JmsProvider> providers) {
        return new FlowHostSettings(flows, dataSources, providers, values());
    }

    @Override
    public boolean equals(Object other) {
        return super.equals(other) && other instanceof FlowHostSettings that && flows.equals(that.flows)
                && dataSources.equals(that.dataSources) && jmsProviders.equals(that.jmsProviders);
    }

    @Override
    public int hashCode() {
        return Objects.hash(super.hashCode(), flows, dataSources, jmsProviders);
    }

    @Override
    public String toString() { // no password
        return "FlowHostSettings[flows=" + flows + ", dataSources=" + dataSources + ", " + values()
                + ", jmsProviders=" + jmsProviders + "]";
    }
}
