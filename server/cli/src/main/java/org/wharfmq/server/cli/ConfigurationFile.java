package org.wharfmq.server.cli;

import org.wharfmq.server.Configuration;
import org.wharfmq.server.channels.ChannelConfiguration;
import org.wharfmq.server.channels.ChannelDefinition;
import org.wharfmq.server.channels.ChannelSettings;
import org.wharfmq.server.channels.HierarchyConfiguration;
import org.wharfmq.server.channels.HierarchySettings;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.config.Setting;
import org.wharfmq.server.config.Settings;
import org.wharfmq.server.config.QueueConfiguration;
import org.wharfmq.server.config.TlsConfiguration;
import org.wharfmq.server.config.TopicConfiguration;
import org.wharfmq.server.flow.FlowHostConfiguration;
import org.wharfmq.server.flow.FlowHostSettings;
import org.wharfmq.server.http.HttpConfiguration;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.replication.ReplicationConfiguration;
import org.wharfmq.server.replication.ReplicationSettings;
import org.wharfmq.server.security.file.SecurityConfiguration;
import org.wharfmq.server.security.file.SecuritySettings;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A YAML configuration file ({@code config/wharf.yaml}) as {@code wharf server --config} reads it: the file is read
 * into a {@link Settings} tree ({@link YamlTree}), and each component reads the keys it owns from it, with its own
 * defaults and checks: the queue manager its top-level settings ({@link ServerConfig#read}), the flow host its
 * {@code flowHost:}, {@code flows:} and the other lists of {@link FlowHostSettings}, the HTTP listener its
 * {@code http:} ({@link HttpSettings#SECTION}), the security file's module its {@code security:}
 * ({@link SecuritySettings#SECTION}), the channels their {@code channels:}
 * ({@link ChannelSettings#SECTION}) and {@code hierarchy:} ({@link HierarchySettings#SECTION}), the replication its
 * {@code replication:} ({@link ReplicationSettings#SECTION}).
 * Settings the file does not mention keep their defaults. A key a component reads at its old place (a top-level
 * {@code securityFile} is now {@code security.file}) is read as before, with a warning ({@link #warnings}) that
 * {@code wharf server} prints at start; a file that gives it at both places is refused. A key that no
 * component asked for is an error naming the key and the known ones, so a typo never silently falls back to a
 * default.
 *
 * @param server the queue manager's settings (validated)
 * @param flowHost the flow host's settings: the flows deployed at startup, its user, remoteDeploy (validated)
 * @param http   the HTTP listener's settings (validated), null for none
 * @param security where the security file is, null for none (no users: local anonymous clients only)
 * @param channels the channels to other queue managers (validated), none when the file has no {@code channels:}
 * @param replication the members of the replicated queue manager this instance is one of, null for none
 * @param hierarchy its parent and children in a publish/subscribe hierarchy, none when the file has no
 *                  {@code hierarchy:}
 * @param warnings  what the file gives at an old place, each naming the key, its line and its new place
 * @param source    where the settings came from, as {@code wharf admin display settings} heads them: the file's
 *                  absolute path, or {@value #BUILT_IN}; the command line's overrides after it ({@link #overriddenBy})
 */
public record ConfigurationFile(ServerConfig server, FlowHostSettings flowHost, HttpSettings http,
                                SecuritySettings security, ChannelSettings channels, ReplicationSettings replication,
                                HierarchySettings hierarchy, List<String> warnings, String source) {

    /** The {@link #source} of the settings of a server started without a file. */
    public static final String BUILT_IN = "the built-in defaults (no --config file)";

    /**
     * Where each component declares its settings ({@link Setting}s in a class of named defaults), and the section of
     * the file they are in: what config/wharf.yaml must explain, each with its default (ConfigurationFileTest). A new
     * component with settings of its own is one more line here.
     *
     * @param section      the section's path in the file ({@code tls}, {@code replication.tls}); empty at the top;
     *                     {@code channels[]} for the keys of each entry of a list
     * @param declarations the class declaring them
     */
    public record Declarations(String section, Class<?> declarations) {

        /** The settings {@link #declarations} declares. */
        public List<Setting<?>> settings() {
            return Setting.declaredIn(declarations);
        }
    }

    /** Every component's settings, by section, in the file's order. */
    public static final List<Declarations> DECLARATIONS = List.of(
            new Declarations("", Configuration.class),
            new Declarations(SecuritySettings.KEY, SecurityConfiguration.class),
            new Declarations(FlowHostSettings.KEY, FlowHostConfiguration.class),
            new Declarations("replication", ReplicationConfiguration.class),
            new Declarations("replication.tls", ReplicationConfiguration.Tls.class),
            new Declarations("replication.members[]", ReplicationConfiguration.MemberEntry.class),
            new Declarations("tls", TlsConfiguration.class),
            new Declarations("queues[]", QueueConfiguration.class),
            new Declarations("queues[]", QueueConfiguration.Reference.class),
            new Declarations("topics[]", TopicConfiguration.class),
            new Declarations(HttpSettings.KEY, HttpConfiguration.class),
            new Declarations(HierarchySettings.KEY, HierarchyConfiguration.class),
            new Declarations("channels[]", ChannelConfiguration.class),
            new Declarations("dataSources[]", FlowHostConfiguration.DataSourceEntry.class),
            new Declarations("jmsProviders[]", FlowHostConfiguration.JmsProviderEntry.class),
            new Declarations("flows[]", FlowHostConfiguration.FlowEntry.class));

    /**
     * The settings of every component but the queue manager's own ({@link ServerConfig#byKey()}), in force, by their
     * path in the file ({@code http.port}), a password as {@value Setting#REDACTED}: the security file, the flow host,
     * the HTTP listener, the hierarchy, the channels (their names) and the replication. A section the file leaves out
     * shows as its key, with no value.
     */
    public Map<String, Object> componentSettings() {
        Map<String, Object> shown = new LinkedHashMap<>();
        shown.putAll(security == null ? SecuritySettings.none() : security.shown());
        shown.putAll(flowHost.shown());
        if (http == null) {
            shown.put(HttpSettings.KEY, null);
        } else {
            shown.putAll(http.shown());
        }
        shown.putAll(hierarchy.shown());
        shown.put("channels", channels.channels().stream().map(ChannelDefinition::name).toList().toString());
        if (replication == null) {
            shown.put(ReplicationSettings.KEY, null);
        } else {
            shown.putAll(replication.shown());
        }
        return shown;
    }

    /**
     * This configuration as member {@code id} of its replicated queue manager (the command line's {@code --replica},
     * which overrides {@code replication.member}, and shows in the settings in force).
     *
     * @throws ConfigurationException when the file has no {@code replication:} block
     * @throws IllegalArgumentException naming the members, when the group has no member {@code id}
     */
    public ConfigurationFile withReplica(String id) {
        if (replication == null) {
            throw new ConfigurationException("--replica " + id + " names a member of a replicated queue manager, but "
                    + "the configuration has no replication block: add one (config/wharf.yaml), or leave --replica out.");
        }
        return new ConfigurationFile(server, flowHost, http, security, channels, replication.withMember(id), hierarchy,
                warnings, source);
    }

    /**
     * This configuration with the command line's {@code options} (as {@code --port}) over it: its {@link #source}
     * names them after the file's. The settings themselves the caller overrides ({@code wharf server}).
     */
    public ConfigurationFile overriddenBy(List<String> options) {
        return options.isEmpty() ? this : new ConfigurationFile(server, flowHost, http, security, channels,
                replication, hierarchy, warnings, source + "; " + String.join(", ", options)
                + " from the command line");
    }

    /** The built-in defaults, as when no file is given: every setting at its default, no flows, no HTTP listener. */
    public static ConfigurationFile defaults() {
        return new ConfigurationFile(ServerConfig.defaults(), FlowHostSettings.defaults(), null, null,
                ChannelSettings.none(), null, HierarchySettings.none(), List.of(), BUILT_IN);
    }

    /**
     * Reads a YAML file.
     *
     * @throws ConfigurationException when the file cannot be read, is not valid YAML, names an unknown setting or
     *                                gives an invalid value; the message names the file and the setting
     */
    public static ConfigurationFile load(Path yaml) {
        Settings file = YamlTree.read(yaml);
        try {
            ServerConfig.Builder broker = ServerConfig.read(file);
            FlowHostSettings flowHost = FlowHostSettings.SECTION.read(file);
            HttpSettings http = HttpSettings.SECTION.read(file);
            SecuritySettings security = SecuritySettings.SECTION.read(file);
            ChannelSettings channels = ChannelSettings.SECTION.read(file);
            ReplicationSettings replication = ReplicationSettings.SECTION.read(file);
            HierarchySettings hierarchy = HierarchySettings.SECTION.read(file);
            file.refuseUnknown();
            ServerConfig server = broker.build();
            if (http != null) {
                http.check(server);
            }
            return new ConfigurationFile(server, flowHost, http, security, channels, replication, hierarchy,
                    file.warnings(), yaml.toAbsolutePath().normalize().toString());
        } catch (ConfigurationException e) {
            throw inFile(e, yaml);
        }
    }

    /** The error, naming the file unless it does already. */
    private static ConfigurationException inFile(ConfigurationException e, Path yaml) {
        return e.getMessage().contains(yaml.toString()) ? e : new ConfigurationException(e.getMessage() + " (in " + yaml + ")", e);
    }

}
