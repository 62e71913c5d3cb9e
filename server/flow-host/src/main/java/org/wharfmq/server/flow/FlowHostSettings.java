package org.wharfmq.server.flow;

import org.wharfmq.flow.runtime.JmsProvider;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.SettingsSection;

import java.nio.file.Path;
import java.util.List;

/**
 * The flow host's settings: its keys of config/wharf.yaml, at the file's top level where they have always been
 * ({@code flows:}, {@code dataSources:}, {@code remoteDeploy}, {@code flowHostUser}, {@code flowHostPassword},
 * {@code fileDirectories}, {@code jmsProviders:}; docs/flows.md). Defaults: {@link FlowHostConfiguration}.
 *
 * @param flows        the flows deployed at startup, in order
 * @param dataSources  the databases the flows may use, by name (each a connection pool)
 * @param user         the user the flows connect as (over the in-VM listener, by SCRAM-SHA-256 like any client),
 *                     or null: they connect anonymously in-VM, as the queue manager itself
 * @param password     the password of {@code user}; never shown by {@link #toString()}
 * @param remoteDeploy whether flow jars sent over the wire ({@code wharf flow deploy}) are deployed (and kept ones
 *                     restored)
 * @param fileDirectories the directories file nodes may read and write, with everything under them (absolute;
 *                     relative names in wharf.yaml are taken from its directory); empty: no flow may use files
 * @param jmsProviders the other JMS providers the flows' JMSInput and JMSOutput nodes may use, by name
 *                     ({@code jmsProviders:}; {@link JmsProviders})
 */
public record FlowHostSettings(List<FlowConfig> flows, List<DataSourceConfig> dataSources, String user,
                               String password, boolean remoteDeploy, List<Path> fileDirectories,
                               List<JmsProvider> jmsProviders) {

    /**
     * Reads the flow host's keys.
     *
     * @see SettingsSection
     */
    public static final SettingsSection<FlowHostSettings> SECTION = file -> new FlowHostSettings(FlowConfig.read(file),
            DataSourceConfig.read(file), file.text("flowHostUser", null), file.text("flowHostPassword", null),
            file.flag("remoteDeploy", FlowHostConfiguration.DEFAULT_REMOTE_DEPLOY), file.files("fileDirectories"), JmsProviders.read(file));

    /**
     * Checks the flows, the data sources and that a user has a password.
     *
     * @throws ConfigurationException naming the setting that is wrong
     */
    public FlowHostSettings {
        FlowConfig.validate(flows);
        flows = List.copyOf(flows);
        fileDirectories = List.copyOf(fileDirectories);
        JmsProviders.validate(jmsProviders);
        jmsProviders = List.copyOf(jmsProviders);
        DataSourceConfig.validate(dataSources);
        dataSources = List.copyOf(dataSources);
        if (user != null && (password == null || password.isEmpty())) {
            throw new ConfigurationException("Setting flowHostUser '" + user + "' needs flowHostPassword too"
                    + " (the flows log in as that user).");
        }
    }

    /** No configured flows or data sources, anonymous in-VM, no deploying over the wire. */
    public static FlowHostSettings defaults() {
        return new FlowHostSettings(List.of(), List.of(), null, null, FlowHostConfiguration.DEFAULT_REMOTE_DEPLOY,
                List.of(), List.of());
    }

    /** These settings with {@code flows} deployed at startup instead. */
    public FlowHostSettings withFlows(List<FlowConfig> flows) {
        return new FlowHostSettings(flows, dataSources, user, password, remoteDeploy, fileDirectories, jmsProviders);
    }

    /** These settings with {@code dataSources} for the flows instead. */
    public FlowHostSettings withDataSources(List<DataSourceConfig> dataSources) {
        return new FlowHostSettings(flows, dataSources, user, password, remoteDeploy, fileDirectories, jmsProviders);
    }

    /** These settings with the flows connecting as {@code user}. */
    public FlowHostSettings withUser(String user, String password) {
        return new FlowHostSettings(flows, dataSources, user, password, remoteDeploy, fileDirectories, jmsProviders);
    }

    /** These settings with deploying over the wire on or off. */
    public FlowHostSettings withRemoteDeploy(boolean remoteDeploy) {
        return new FlowHostSettings(flows, dataSources, user, password, remoteDeploy, fileDirectories, jmsProviders);
    }

    /** These settings with file nodes allowed in {@code directories} (and everything under them). */
    public FlowHostSettings withFileDirectories(List<Path> directories) {
        return new FlowHostSettings(flows, dataSources, user, password, remoteDeploy, directories, jmsProviders);
    }

    /** These settings with {@code providers} for the flows' JMSInput and JMSOutput nodes instead. */
    public FlowHostSettings withJmsProviders(List<JmsProvider> providers) {
        return new FlowHostSettings(flows, dataSources, user, password, remoteDeploy, fileDirectories, providers);
    }

    @Override
    public String toString() { // no password
        return "FlowHostSettings[flows=" + flows + ", dataSources=" + dataSources + ", user=" + user
                + ", remoteDeploy=" + remoteDeploy + ", fileDirectories=" + fileDirectories + ", jmsProviders=" + jmsProviders + "]";
    }
}
