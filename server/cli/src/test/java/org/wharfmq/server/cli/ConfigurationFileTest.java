package org.wharfmq.server.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.runtime.JmsProvider;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.channels.ChannelConfiguration;
import org.wharfmq.server.channels.ChannelDefinition;
import org.wharfmq.server.channels.HierarchyConfiguration;
import org.wharfmq.server.channels.HierarchySettings;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.QueueConfiguration;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.config.Setting;
import org.wharfmq.server.config.TlsConfig;
import org.wharfmq.server.config.TlsConfiguration;
import org.wharfmq.server.config.TopicConfiguration;
import org.wharfmq.server.config.TopicDefinition;
import org.wharfmq.server.flow.FlowConfig;
import org.wharfmq.server.flow.FlowHostConfiguration;
import org.wharfmq.server.flow.FlowHostSettings;
import org.wharfmq.server.http.HttpConfiguration;
import org.wharfmq.server.http.HttpSettings;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The YAML configuration file: its keys, its defaults and the errors that name the file and the setting. */
class ConfigurationFileTest {

    /** The sample shipped in the repository (wharf.root: set by the build). */
    private static final Path SAMPLE = Path.of(System.getProperty("wharf.root"), "config", "wharf.yaml");

    @TempDir
    Path dir;

    /**
     * config/wharf.yaml is the operators' manual of the settings: each setting a component declares
     * ({@link ConfigurationFile#DECLARATIONS}: the queue manager's {@code Configuration}, the TLS listener's, the HTTP
     * listener's, the flow host's...) is there, in its section, given with its default, or shown commented out (with
     * its default, or as an example when it has none).
     */
    @Test
    void everyDeclaredSettingIsExplainedInTheSampleInItsSectionWithItsDefault() throws IOException {
        List<String> sample = Files.readAllLines(SAMPLE);
        List<String> missing = new ArrayList<>();
        for (ConfigurationFile.Declarations component : ConfigurationFile.DECLARATIONS) {
            assertFalse(component.settings().isEmpty(), component + " declares no setting");
            missing.addAll(component.section().endsWith("[]")
                    ? undescribed(component.section(), component.settings(), sample)
                    : unexplained(component.section(), component.settings(), sample));
        }
        // given with another value than the default on purpose: what the sample flows it deploys need
        missing.removeIf(m -> SET_FOR_THE_SAMPLE_FLOWS.stream().anyMatch(path -> m.startsWith(path + ": default ")));
        assertEquals(List.of(), missing, "settings missing from " + SAMPLE + " or given there with another value than "
                + "their declared default: add each, explained, in its section, with its default");
        // the check itself: a setting declared and not in the file, or given with another default, is reported
        Setting<Integer> undocumented = Setting.integer("notInTheSample", 1);
        Setting<Integer> otherDefault = Setting.integer("maxQueues", 7);
        assertEquals(List.of("notInTheSample", "maxQueues: default 7, the file gives 10000"),
                unexplained("", List.<Setting<?>>of(undocumented, otherDefault, Configuration.MAX_QUEUES), sample));
        assertEquals(List.of("http.port: default 1, the file gives 7480", "tls.port: default 1, the file shows 7415",
                        "tls.notInTheSample"),
                concat(unexplained("http", List.of(Setting.integer("port", 1)), sample),
                        unexplained("tls", List.of(Setting.integer("port", 1), undocumented), sample)));
        assertEquals(List.of("channels[].batchSize: not described as 'batchSize 77'",
                        "channels[].notInTheSample: not described as 'notInTheSample 1'"),
                undescribed("channels[]", List.of(Setting.integer("batchSize", 77), undocumented,
                        ChannelConfiguration.BATCH_SIZE), sample));
    }

    /**
     * The settings the sample gives another value than their default, for the sample flows it deploys (the files
     * sample's directories, docs/flows.md "Sample flows"); each is explained there all the same.
     */
    private static final List<String> SET_FOR_THE_SAMPLE_FLOWS = List.of("flowHost.fileDirectories");

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** A key as the sample writes it: commented out or not, and the value it shows (its text, comment left out). */
    private record Written(boolean commented, String value) {
    }

    private static final Pattern KEY_LINE = Pattern.compile("^( *)([A-Za-z][A-Za-z0-9]*):(.*)$");

    /**
     * The keys the sample, whose {@code lines} these are, writes, by their path ({@code tls.port}): as given, or as
     * shown in a comment ({@code #tls:}, {@code #  port: 7415}, {@code   #host: 127.0.0.1}), each by its indentation
     * (two spaces a level) under the section written last above it.
     */
    private static Map<String, Written> written(List<String> lines) {
        Map<String, Written> keys = new LinkedHashMap<>();
        List<String> path = new ArrayList<>();
        for (String line : lines) {
            int hash = line.indexOf('#');
            boolean commented = hash >= 0 && line.substring(0, hash).isBlank();
            Matcher m = KEY_LINE.matcher(commented ? line.substring(0, hash) + line.substring(hash + 1) : line);
            int depth = m.matches() ? m.group(1).length() / 2 : -1;
            if (depth < 0 || depth > path.size()) {
                continue; // prose, or an entry of a list
            }
            path.subList(depth, path.size()).clear();
            path.add(m.group(2));
            String value = m.group(3);
            int comment = value.indexOf(" #");
            keys.putIfAbsent(String.join(".", path), new Written(commented,
                    (comment >= 0 ? value.substring(0, comment) : value).trim()));
        }
        return keys;
    }

    /**
     * The settings of {@code section} the sample, whose {@code lines} these are, does not explain: their paths, or path
     * and both defaults.
     */
    private static List<String> unexplained(String section, List<Setting<?>> settings, List<String> lines) {
        org.wharfmq.server.config.Settings file = YamlTree.read(SAMPLE);
        Map<String, Written> written = written(lines);
        List<String> missing = new ArrayList<>();
        for (Setting<?> setting : settings) {
            String path = setting.path(section);
            Written w = written.get(path);
            Object defaultValue = setting.defaultValue();
            boolean noDefault = defaultValue == null || (defaultValue instanceof Collection<?> c && c.isEmpty());
            if (w == null) {
                missing.add(path);
            } else if (!w.commented()) {
                Object value = given(setting, section, file);
                if (!String.valueOf(defaultValue).equals(String.valueOf(value))) {
                    missing.add(path + ": default " + defaultValue + ", the file gives " + value);
                }
            } else if (!noDefault && !String.valueOf(defaultValue).equalsIgnoreCase(w.value())) {
                missing.add(path + ": default " + defaultValue + ", the file shows " + w.value());
            }
        }
        return missing;
    }

    /**
     * The keys of the entries of a list ({@code channels[]}) the sample, whose {@code lines} these are, does not
     * describe in the paragraph of its (commented) key: each key by name, with its default after it in the same
     * sentence when it has one ({@code batchSize 50}, {@code poolSize (default 10)}).
     */
    private static List<String> undescribed(String section, List<Setting<?>> settings, List<String> lines) {
        String list = section.substring(section.lastIndexOf('.') + 1, section.length() - "[]".length());
        int at = -1;
        for (int i = 0; i < lines.size() && at < 0; i++) {
            at = lines.get(i).matches("#? *" + list + ": *(\\[])? *(#.*)?") ? i : -1; // the list's key, alone
        }
        assertTrue(at >= 0, "the sample has no " + list + ": (commented or not)");
        int from = at;
        int to = at;
        while (from > 0 && !lines.get(from - 1).isBlank()) {
            from--;
        }
        while (to < lines.size() - 1 && !lines.get(to + 1).isBlank()) {
            to++;
        }
        String paragraph = " " + String.join(" ", lines.subList(from, to + 1)).replace("#", " ")
                .replaceAll("\\s+", " ") + " ";
        List<String> missing = new ArrayList<>();
        for (Setting<?> setting : settings) {
            String described = setting.key() + (setting.defaultValue() == null ? "" : " " + shownDefault(setting));
            String pattern = "[ (,]" + Pattern.quote(setting.key()) + (setting.defaultValue() == null ? ""
                    : "[^.;]{0,60}?[ (]" + Pattern.quote(String.valueOf(shownDefault(setting)))) + "[ ,.:;)]";
            if (!Pattern.compile(pattern).matcher(paragraph).find()) {
                missing.add(setting.path(section) + ": not described as '" + described + "'");
            }
        }
        return missing;
    }

    private static <T> Object shownDefault(Setting<T> setting) {
        return setting.shown(setting.defaultValue());
    }

    /** The value {@code file} gives {@code setting} in {@code section}, which it does. */
    private static <T> T given(Setting<T> setting, String section, org.wharfmq.server.config.Settings file) {
        org.wharfmq.server.config.Settings block = file;
        for (String key : section.isEmpty() ? new String[0] : section.split("\\.")) {
            block = block.section(key);
        }
        return setting.read(block, setting.defaultValue());
    }

    /**
     * What {@code wharf admin display settings} shows: every component's settings in force by their path in the file,
     * a section left out as its key alone, and never a password.
     */
    @Test
    void theSettingsInForceShowEveryComponentsByPathAndNoPassword() throws IOException {
        ConfigurationFile file = ConfigurationFile.load(write("""
                flowHost:
                  user: flows
                  password: s3cret-flows
                security:
                  file: security.yaml
                tls:
                  keyStore: tls/server.p12
                  keyStorePassword: s3cret-tls
                http:
                  port: 8080
                hierarchy:
                  parent: QM1
                """));
        Map<String, Object> broker = file.server().byKey();
        assertEquals(Setting.REDACTED, broker.get("tls.keyStorePassword"));
        assertEquals("none", broker.get("tls.clientAuth"), "as wharf.yaml writes it");
        assertEquals(dir.resolve("tls/server.p12").toAbsolutePath().toString(), broker.get("tls.keyStore"));
        Map<String, Object> components = file.componentSettings();
        assertEquals(Setting.REDACTED, components.get("flowHost.password"));
        assertEquals("flows", components.get("flowHost.user"));
        assertEquals(8080, components.get("http.port"));
        assertEquals("QM1", components.get("hierarchy.parent"));
        assertEquals(dir.resolve("security.yaml").toAbsolutePath().toString(), components.get("security.file"));
        assertTrue(components.containsKey("replication") && components.get("replication") == null, components.toString());
        String all = broker + " " + components + " " + file;
        assertFalse(all.contains("s3cret"), all);

        Map<String, Object> defaults = ConfigurationFile.defaults().componentSettings();
        assertTrue(defaults.containsKey("http") && defaults.get("http") == null, "no HTTP listener: " + defaults);
        assertTrue(defaults.containsKey("security.file") && defaults.get("security.file") == null, "no file: " + defaults);
        assertNull(defaults.get("flowHost.password"), "none set: shown as none, not redacted");
        assertTrue(ServerConfig.defaults().byKey().containsKey("tls"), "no TLS listener");
    }

    @Test
    void sampleConfigurationParses() {
        ServerConfig config = ConfigurationFile.load(SAMPLE).server();
        assertEquals("WHARF", config.name());
        assertEquals("0.0.0.0", config.host());
        assertEquals(7414, config.port());
        assertEquals("wharf", config.inVmName());
        assertEquals(Path.of("data"), config.dataDirectory());
        assertTrue(config.autoCreate());
        assertFalse(ConfigurationFile.load(SAMPLE).flowHost().remoteDeploy(), "the sample refuses flow jars sent over the wire");
        assertFalse(config.standby(), "the sample starts active, or refuses a directory in use");
        assertEquals(10_000, config.maxQueues());
        assertEquals(300_000L, config.autoDeleteDelayMillis());
        assertEquals(104_857_600, config.maxMessageLength());
        assertEquals(5_000_000L, config.maxQueueDepth());
        assertEquals(10_000, config.heartbeatMillis());
        assertEquals(10_000, config.handshakeTimeoutMillis());
        assertEquals(10_000, config.maxConnections());
        assertEquals(1_000, config.maxConnectionsPerAddress());
        assertEquals(1_000, config.maxTemporaryQueuesPerConnection());
        assertEquals(Runtime.getRuntime().availableProcessors(), config.ioThreads(), "0 in the sample: one per processor");
        assertEquals(List.of(QueueDefinition.named("REQUEST"), QueueDefinition.named("REPLY"),
                QueueDefinition.named("SYSTEM.DEAD.LETTER.QUEUE").with(QueueConfiguration.MAX_DEPTH, 1_000_000L)),
                config.queues());
    }

    @Test
    void aRelativeSecurityFileIsBesideTheConfigurationFile() throws IOException {
        Path yaml = write("security:\n  file: security.yaml\n");
        assertEquals(yaml.toAbsolutePath().getParent().resolve("security.yaml"),
                ConfigurationFile.load(yaml).security().file());
        assertEquals(Path.of("/etc/wharf/security.yaml"),
                ConfigurationFile.load(write("security:\n  file: /etc/wharf/security.yaml\n")).security().file());
        assertNull(ConfigurationFile.load(write("security:\n  file:\n")).security(), "empty: no security file");
        assertRefused("security:\n  flie: security.yaml\n", "Unknown setting 'security.flie'");
        assertNull(ConfigurationFile.load(SAMPLE).security(), "the sample needs no users: local clients only");
    }

    @Test
    void settingsLeftOutKeepTheirDefaults() throws IOException {
        ServerConfig config = ConfigurationFile.load(write("port: 9999\n")).server();
        assertEquals(9999, config.port());
        assertEquals(Configuration.HEARTBEAT_MILLIS.defaultValue(), config.heartbeatMillis());
        assertEquals(ServerConfig.defaults().toString().replace("port=7414", "port=9999"), config.toString());
    }

    @Test
    void ioThreadsSetsTheNetworkThreadCount() throws IOException {
        assertEquals(3, ConfigurationFile.load(write("ioThreads: 3\n")).server().ioThreads());
        assertEquals(Runtime.getRuntime().availableProcessors(), ServerConfig.defaults().ioThreads());
    }

    @Test
    void connectionAndHandshakeLimitsAreRead() throws IOException {
        ServerConfig config = ConfigurationFile.load(write("handshakeTimeoutMillis: 3000\nmaxConnections: 50\n"
                + "maxConnectionsPerAddress: 5\nmaxTemporaryQueuesPerConnection: 9\n")).server();
        assertEquals(List.of(3000, 50, 5, 9), List.of(config.handshakeTimeoutMillis(), config.maxConnections(),
                config.maxConnectionsPerAddress(), config.maxTemporaryQueuesPerConnection()));
    }

    @Test
    void emptyFileMeansDefaults() throws IOException {
        ConfigurationFile file = ConfigurationFile.load(write(""));
        assertEquals(ServerConfig.defaults().toString(), file.server().toString());
        assertEquals(FlowHostSettings.defaults(), file.flowHost());
    }

    @Test
    void unknownKeyIsAnErrorNamingTheKeyAndFile() throws IOException {
        Path file = write("port: 7414\nmaxQueueDeph: 10\n");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(file));
        assertTrue(e.getMessage().startsWith("Unknown setting 'maxQueueDeph' in " + file + " at line 2."), e.getMessage());
        assertTrue(e.getMessage().contains("maxQueueDepth"), "the known settings are listed: " + e.getMessage());
    }

    @Test
    void unknownKeyInsideAQueueNamesItsPath() throws IOException {
        Path file = write("queues:\n  - name: A\n  - name: B\n    depth: 5\n");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(file));
        assertTrue(e.getMessage().startsWith("Unknown setting 'queues[1].depth'"), e.getMessage());
        assertTrue(e.getMessage().contains("maxDepth"), e.getMessage());
    }

    @Test
    void unknownKeyInsideAFlowNamesItsPathAndTheFlowKeys() throws IOException {
        Path file = write("flows:\n  - jar: x.jar\n    klass: X\n");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(file));
        assertTrue(e.getMessage().startsWith("Unknown setting 'flows[0].klass' in " + file), e.getMessage());
        assertTrue(e.getMessage().endsWith("Known settings here: class, instances, jar, properties."), e.getMessage());
    }

    @Test
    void theFlowHostsKeysAreReadByTheFlowHostFromItsBlock() throws IOException {
        ConfigurationFile file = ConfigurationFile.load(write("""
                flowHost:
                  remoteDeploy: true
                  user: flows
                  password: secret
                flows:
                  - jar: a.jar
                    class: A
                  - jar: b.jar
                    class: B
                    properties:
                      serviceUrl: http://mq2:7480/flows/echo
                      region: west
                """));
        FlowHostSettings flowHost = file.flowHost();
        assertTrue(flowHost.remoteDeploy());
        assertEquals("flows", flowHost.user());
        assertEquals("secret", flowHost.password());
        assertFalse(flowHost.toString().contains("secret"), flowHost.toString());
        assertEquals(List.of(new FlowConfig("a.jar", "A", null), new FlowConfig("b.jar", "B", null)
                .with(FlowHostConfiguration.FlowEntry.PROPERTIES, Map.of("serviceUrl", "http://mq2:7480/flows/echo",
                        "region", "west"))), flowHost.flows());
        assertEquals(List.of("serviceUrl", "region"), List.copyOf(flowHost.flows().get(1).properties().keySet()),
                "in the file's order");
        assertEquals(Map.of(), flowHost.flows().get(0).properties());
        assertEquals(List.of(), file.warnings(), "nothing at an old place");
        assertRefused("flowHost:\n  user: flows\n", "Setting flowHost.user 'flows' needs flowHost.password too");
        assertRefused("flowHost:\n  remoteDeploy: maybe\n", "Invalid value for setting 'flowHost.remoteDeploy'");
        assertRefused("flowHost:\n  flowHostUser: flows\n", "Unknown setting 'flowHost.flowHostUser'");
        assertRefused("flows:\n  - jar: a.jar\n    class: A\n    instances: 0\n", "Setting instances of flow A must be at least 1");
    }

    /**
     * A file written for an earlier version, with the flow host's and the security file's keys at the top level,
     * works as before: each key is read at its old place, and a warning names it, its line and its new place.
     */
    @Test
    void keysAtTheirOldTopLevelPlacesAreReadWithAWarningNamingTheNewPlace() throws IOException {
        Path yaml = write("""
                name: OLD
                remoteDeploy: true
                flowHostUser: flows
                flowHostPassword: secret
                fileDirectories: [files]
                securityFile: security.yaml
                """);
        ConfigurationFile file = ConfigurationFile.load(yaml);
        assertTrue(file.flowHost().remoteDeploy());
        assertEquals("flows", file.flowHost().user());
        assertEquals("secret", file.flowHost().password());
        assertEquals(List.of(dir.resolve("files").toAbsolutePath()), file.flowHost().fileDirectories());
        assertEquals(dir.resolve("security.yaml").toAbsolutePath(), file.security().file());
        assertEquals(List.of(
                "Setting 'fileDirectories' in " + yaml + " at line 5 has moved to 'flowHost.fileDirectories' (as "
                        + "'fileDirectories' under 'flowHost:'); read at its old place for now: move it there.",
                "Setting 'flowHostPassword' in " + yaml + " at line 4 has moved to 'flowHost.password' (as 'password' "
                        + "under 'flowHost:'); read at its old place for now: move it there.",
                "Setting 'flowHostUser' in " + yaml + " at line 3 has moved to 'flowHost.user' (as 'user' under "
                        + "'flowHost:'); read at its old place for now: move it there.",
                "Setting 'remoteDeploy' in " + yaml + " at line 2 has moved to 'flowHost.remoteDeploy' (as "
                        + "'remoteDeploy' under 'flowHost:'); read at its old place for now: move it there.",
                "Setting 'securityFile' in " + yaml + " at line 6 has moved to 'security.file' (as 'file' under "
                        + "'security:'); read at its old place for now: move it there."), file.warnings());
        assertEquals(file.flowHost(), ConfigurationFile.load(write("""
                flowHost:
                  remoteDeploy: true
                  user: flows
                  password: secret
                  fileDirectories: [files]
                """)).flowHost(), "the same settings as from the block");
        // an old key beside a block that gives other keys: the two are one block
        ConfigurationFile mixed = ConfigurationFile.load(write("flowHostUser: flows\nflowHost:\n  password: secret\n"));
        assertEquals("flows", mixed.flowHost().user());
        assertEquals("secret", mixed.flowHost().password());
        assertEquals(1, mixed.warnings().size(), mixed.warnings().toString());
        // its value checked as the new key's, at the old key's line
        assertRefusedExactly("remoteDeploy: maybe\n", "Invalid value for setting 'flowHost.remoteDeploy' in %s at line 1: "
                + "'maybe' is neither; give true or false.");
        assertRefused("flowHostUser: flows\n", "Setting flowHost.user 'flows' needs flowHost.password too");
    }

    /** A file that gives a key at its old place and at its new one is refused, naming both and where they are. */
    @Test
    void aKeyGivenAtItsOldAndItsNewPlaceIsRefusedNamingBoth() throws IOException {
        assertRefusedExactly("securityFile: a.yaml\nsecurity:\n  file: b.yaml\n", "Settings 'securityFile' (%1$s at "
                + "line 1) and 'security.file' (%1$s at line 3) are one setting, given twice: delete 'securityFile', "
                + "its old place.");
        assertRefusedExactly("flowHost:\n  remoteDeploy: false\nremoteDeploy: true\n", "Settings 'remoteDeploy' (%1$s "
                + "at line 3) and 'flowHost.remoteDeploy' (%1$s at line 2) are one setting, given twice: delete "
                + "'remoteDeploy', its old place.");
    }

    @Test
    void fileDirectoriesAreTakenFromTheConfigurationFilesDirectory() throws IOException {
        FlowHostSettings flowHost = ConfigurationFile.load(write("""
                flowHost:
                  fileDirectories:
                    - files
                    - /var/wharf/files
                """)).flowHost();
        assertEquals(List.of(dir.resolve("files").toAbsolutePath(), Path.of("/var/wharf/files")),
                flowHost.fileDirectories());
        assertEquals(List.of(SAMPLE.getParent().resolve("../data/files").toAbsolutePath()),
                ConfigurationFile.load(SAMPLE).flowHost().fileDirectories(),
                "the sample allows its files sample's directories: data/files in the Wharf folder");
        assertEquals(List.of(), ConfigurationFile.load(SAMPLE).warnings(), "the sample has every key in its place");
        assertRefused("flowHost:\n  fileDirectories: files\n", "Invalid value for setting 'flowHost.fileDirectories'");
    }

    @Test
    void jmsProvidersAreReadWithTheirJndiEnvironment() throws IOException {
        FlowHostSettings flowHost = ConfigurationFile.load(write("""
                jmsProviders:
                  - name: artemis
                    jndi:
                      java.naming.factory.initial: org.apache.activemq.artemis.jndi.ActiveMQInitialContextFactory
                      java.naming.provider.url: tcp://peer:61616
                      queue.jms/orders: ORDERS
                    user: wharf
                    password: secret
                """)).flowHost();
        JmsProvider artemis = flowHost.jmsProviders().get(0);
        assertEquals(new JmsProvider("artemis", Map.of(
                "java.naming.factory.initial", "org.apache.activemq.artemis.jndi.ActiveMQInitialContextFactory",
                "java.naming.provider.url", "tcp://peer:61616", "queue.jms/orders", "ORDERS"),
                "ConnectionFactory", "wharf", "secret"), artemis);
        assertEquals("JMS provider 'artemis' at tcp://peer:61616", artemis.describe());
        assertTrue(!flowHost.toString().contains("secret"), flowHost.toString());
        assertEquals(List.of(), ConfigurationFile.load(SAMPLE).flowHost().jmsProviders(), "the sample has none");
        assertRefused("jmsProviders:\n  - name: a\n    jndi:\n      java.naming.provider.url: tcp://x:1\n",
                "Invalid value for setting 'jmsProviders[0].jndi'");
        assertRefused("jmsProviders:\n  - name: a\n    url: tcp://x:1\n", "Unknown setting 'jmsProviders[0].url'");
        assertTrue(ConfigurationFile.load(write("""
                jmsProviders:
                  - name: artemis
                    jndi:
                      java.naming.factory.initial: org.apache.activemq.artemis.jndi.ActiveMQInitialContextFactory
                    xa: true
                """)).flowHost().jmsProviders().get(0).xa(), "xa: true");
        assertTrue(!artemis.xa(), "xa is off by default");
    }

    @Test
    void wrongTypeNamesTheSetting() throws IOException {
        Path file = write("port: lots\n");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(file));
        assertTrue(e.getMessage().startsWith("Invalid value for setting 'port' in " + file + " at line 1"), e.getMessage());
    }

    @Test
    void outOfRangeValuesAreRefusedNamingTheFileAndLine() throws IOException {
        Path file = write("name: QM1\nport: 70000\n");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(file));
        assertEquals("Setting port must be between 0 and 65535, was 70000. (in " + file + " at line 2)", e.getMessage());
        Path http = write("http:\n  port: 70000\n");
        e = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(http));
        assertEquals("Setting http.port must be between 0 and 65535, was 70000. (in " + http + " at line 2)",
                e.getMessage());
    }

    @Test
    void valuesASetterRefusesOrLeavesEmptyAreReportedAsTheSettingsOwnErrorNamingTheFile() throws IOException {
        Path durability = write("durability: sometimes\n");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(durability));
        assertTrue(e.getMessage().startsWith("Setting durability must be 'fsync' (survives power loss) or 'os'"),
                e.getMessage());
        assertTrue(e.getMessage().endsWith(" (in " + durability + " at line 1)"), e.getMessage());

        Path noData = write("dataDirectory:\n");
        e = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(noData));
        assertEquals("Setting dataDirectory must not be empty. (in " + noData + " at line 1)", e.getMessage());
    }

    @Test
    void duplicateQueueInFileIsRefused() throws IOException {
        Path file = write("queues:\n  - name: A\n  - name: A\n");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(file));
        assertTrue(e.getMessage().startsWith("Queue 'A' is defined twice"), e.getMessage());
    }

    @Test
    void transmissionQueuesAliasesAndRemoteQueuesAreReadFromQueuesAndCheckedNamingTheEntry() throws IOException {
        ServerConfig config = ConfigurationFile.load(write("name: QM1\ndefaultTransmissionQueue: QM2\nqueues:\n"
                + "  - name: QM2\n    usage: transmission\n"
                + "  - name: ORDERS.QM2\n    type: remote\n    remoteQueue: ORDERS\n    remoteQueueManager: QM2\n"
                + "  - name: ORDERS.ANY\n    type: alias\n    target: ORDERS.QM2\n")).server();
        assertEquals(List.of(QueueDefinition.transmissionQueue("QM2")), config.queues());
        assertEquals(List.of(QueueReference.remote("ORDERS.QM2", "ORDERS", "QM2", null),
                QueueReference.alias("ORDERS.ANY", "ORDERS.QM2")), config.references());
        assertEquals("QM2", config.defaultTransmissionQueue());
        assertRefused("queues:\n  - name: A\n    type: alias\n", "Queue 'A' (alias): an alias needs a target");
        assertRefused("queues:\n  - name: A\n    type: alias\n    target: B\n    maxDepth: 5\n",
                "Unknown setting 'queues[0].maxDepth'");
        assertRefused("queues:\n  - name: Q\n    usage: xmitq\n", "Setting usage of queue 'Q' must be transmission");
        assertRefused("defaultTransmissionQueue: NONE\n", "Setting defaultTransmissionQueue names 'NONE', which is"
                + " not a queue with usage transmission");
        assertRefused("name: QM/1\n", "Setting name must not hold a '/'");
        assertRefused("queues:\n  - name: QM2/ORDERS\n", "Queue 'QM2/ORDERS' under 'queues': a '/' separates");
    }

    @Test
    void channelsAreReadByTheChannelsAndCheckedNamingTheChannel() throws IOException {
        Path file = write("channels:\n"
                + "  - name: QM1.TO.QM2\n    type: sender\n    connection: ssl://qm2:7415\n    transmissionQueue: QM2\n"
                + "    user: qm1\n    password: pw\n    batchSize: 10\n    tls:\n      trustStore: trust.p12\n"
                + "  - name: QM2.TO.QM1\n    type: receiver\n    partnerUser: qm2\n"
                + "    partnerCertificate: \"CN=qm2, O=Example\"\n");
        List<ChannelDefinition> channels = ConfigurationFile.load(file).channels().channels();
        assertEquals(2, channels.size());
        ChannelDefinition sender = channels.get(0);
        assertEquals(ChannelDefinition.Type.SENDER, sender.type());
        assertEquals("ssl://qm2:7415", sender.connection());
        assertEquals(10, sender.batchSize());
        assertEquals(ChannelConfiguration.BATCH_BYTES.defaultValue(), sender.batchBytes());
        assertEquals(file.toAbsolutePath().getParent().resolve("trust.p12").toString(),
                sender.tls().get("trustStore"), "a relative name from the file's directory, as the server's tls: files");
        assertEquals("qm2", channels.get(1).partnerUser());
        assertEquals("CN=qm2, O=Example", channels.get(1).partnerCertificate());
        Path notASubject = write("channels:\n  - name: C\n    type: receiver\n    partnerCertificate: qm2\n");
        String refused = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(notASubject))
                .getMessage();
        assertTrue(refused.startsWith("Invalid channel 'C' in " + notASubject + ": partnerCertificate 'qm2' is not a"
                + " certificate subject (an X.500 name as RFC 2253 writes it, CN=qm1,O=Example)"), refused);
        assertEquals(List.of(), ConfigurationFile.load(write("name: QM1\n")).channels().channels());
        assertRefused("channels:\n  - name: C\n    type: sender\n    transmissionQueue: X\n",
                "Invalid channel 'C' in");
        assertRefused("channels:\n  - name: C\n    type: receiver\n    batchsize: 5\n",
                "Unknown setting 'channels[0].batchsize'");
        assertRefused("channels:\n  - name: C\n    type: requester\n", "Invalid value for setting 'channels[0].type'");
        assertRefused("channels:\n  - name: C\n    type: receiver\n  - name: C\n    type: receiver\n",
                "Channel 'C' is defined twice");
    }

    /** A list's entries are read and checked as the sections are: the error names the entry, the rule and the line. */
    @Test
    void aListEntrysValueIsRefusedNamingTheEntryTheRuleAndItsLine() throws IOException {
        assertRefusedExactly("queues:\n  - name: Q\n    maxBytes: 0\n",
                "Setting maxBytes of queue 'Q' must be at least 1, was 0. (in %s at line 3)");
        assertRefusedExactly("topics:\n  - filter: a/#\n    policy: often\n",
                "Setting policy of topic 'a/#' must be block, fail, drop or page, was 'often'. (in %s at line 3)");
        assertRefusedExactly("flows:\n  - jar: a.jar\n    class: A\n    instances: 0\n",
                "Setting instances of flow A must be at least 1, was 0. (in %s at line 4)");
        assertRefusedExactly("channels:\n  - name: C\n    type: receiver\n    maxBatchAttempts: 0\n",
                "Setting maxBatchAttempts of channel 'C' must be at least 1, was 0. (in %s at line 4)");
        assertRefusedExactly("queues:\n  - name: R\n    type: remote\n    remoteQueueManager: QM2/X\n",
                "Setting remoteQueueManager of queue 'R' must be a queue or queue manager name (not empty, no '/'),"
                        + " was 'QM2/X'. (in %s at line 4)");
    }

    /** {@code --replica} names this instance's member: the settings in force show it, not the file's. */
    @Test
    void theReplicaOverridesTheFilesMemberInTheSettingsInForce() throws IOException {
        ConfigurationFile file = ConfigurationFile.load(write("""
                replication:
                  group: WHARF
                  member: a
                  members:
                    - id: a
                      address: mq1:7420
                      dataDirectory: /srv/wharf/a
                    - id: b
                      address: mq2:7420
                      dataDirectory: /srv/wharf/b
                    - id: c
                      address: mq3:7420
                      dataDirectory: /srv/wharf/c
                  tls:
                    keyStore: member.p12
                    trustStore: ca.p12
                """));
        assertEquals("a", file.componentSettings().get("replication.member"));
        ConfigurationFile b = file.withReplica("b");
        assertEquals("b", b.replication().member());
        assertEquals("b", b.componentSettings().get("replication.member"), "what display settings shows");
        assertEquals("a", file.replication().member(), "the file's settings stay as they are");
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> file.withReplica("d"));
        assertTrue(unknown.getMessage().contains("has no member 'd'; its members are [a, b, c]"), unknown.getMessage());
        ConfigurationException none = assertThrows(ConfigurationException.class,
                () -> ConfigurationFile.defaults().withReplica("b"));
        assertTrue(none.getMessage().startsWith("--replica b names a member of a replicated queue manager, but the "
                + "configuration has no replication block"), none.getMessage());
    }

    private void assertRefusedExactly(String yaml, String message) throws IOException {
        Path file = write(yaml);
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(file));
        assertEquals(String.format(message, file), e.getMessage());
    }

    @Test
    void theHierarchyNamesAParentAndChildrenEachOnce() throws IOException {
        HierarchySettings child = ConfigurationFile.load(write("hierarchy:\n  parent: QM1\n")).hierarchy();
        assertEquals("QM1", child.parent());
        assertEquals(List.of("QM1"), child.partners());
        HierarchySettings parent = ConfigurationFile.load(write("hierarchy:\n  children: [QM2, QM3]\n")).hierarchy();
        assertNull(parent.parent());
        assertEquals(List.of("QM2", "QM3"), parent.partners());
        assertEquals(HierarchyConfiguration.MAX_PROXY_SUBSCRIPTIONS.defaultValue(), parent.maxProxySubscriptions());
        assertEquals(50, ConfigurationFile.load(write("hierarchy:\n  parent: QM1\n  maxProxySubscriptions: 50\n"))
                .hierarchy().maxProxySubscriptions());
        assertRefused("hierarchy:\n  parent: QM1\n  maxProxySubscriptions: 0\n",
                "Setting hierarchy.maxProxySubscriptions must be at least 1 (the most proxy subscriptions each partner");
        assertEquals(List.of(), ConfigurationFile.load(write("name: QM1\n")).hierarchy().partners());
        assertRefused("hierarchy:\n  parent: QM1\n  children: [QM2, QM1]\n", "Invalid hierarchy: queue manager QM1 is named twice");
        assertRefused("hierarchy:\n  parent: QM1/X\n", "Invalid hierarchy: 'QM1/X' is not a queue manager's name");
        assertRefused("hierarchy:\n  parents: QM1\n", "Unknown setting 'hierarchy.parents'");
    }

    @Test
    void missingFileIsNamed() {
        Path missing = dir.resolve("nope.yaml");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(missing));
        assertEquals("Configuration file " + missing + " does not exist.", e.getMessage());
    }

    @Test
    void tlsBlockSetsTheTlsListener() throws IOException {
        Path yaml = write("""
                tls:
                  port: 7500
                  plain: false
                  certificate: tls/server.crt
                  privateKey: tls/server.key
                  protocols: [TLSv1.3]
                  cipherSuites: [TLS_AES_128_GCM_SHA256]
                  clientAuth: Required
                  trustCertificates: tls/ca.crt
                  engine: jdk
                """);
        ServerConfig config = ConfigurationFile.load(yaml).server();
        TlsConfig tls = config.tls().orElseThrow();
        Path folder = yaml.toAbsolutePath().getParent();
        assertFalse(config.plainListener(), "plain: false turns the plain listener off");
        assertEquals(7500, tls.port());
        assertEquals(folder.resolve("tls/server.crt"), tls.certificate(), "relative to wharf.yaml's directory");
        assertEquals(folder.resolve("tls/server.key"), tls.privateKey());
        assertEquals(List.of("TLSv1.3"), tls.protocols());
        assertEquals(List.of("TLS_AES_128_GCM_SHA256"), tls.cipherSuites());
        assertEquals(TlsConfig.ClientAuth.REQUIRED, tls.clientAuth());
        assertEquals(folder.resolve("tls/ca.crt"), tls.trustCertificates());
        assertEquals(TlsConfig.Engine.JDK, tls.engine());

        TlsConfig defaults = ConfigurationFile.load(write("tls:\n  keyStore: s.p12\n")).server().tls().orElseThrow();
        assertEquals(List.of("TLSv1.3", "TLSv1.2"), defaults.protocols());
        assertEquals(TlsConfiguration.PORT.defaultValue(), defaults.port());
        assertEquals(TlsConfig.Engine.AUTO, defaults.engine());
        assertTrue(ConfigurationFile.load(write("port: 1\n")).server().tls().isEmpty(), "no tls: block, no TLS listener");
    }

    /** As the security file: the working directory the server was started from does not matter, absolute paths stay. */
    @Test
    void relativeTlsFilesAreBesideTheConfigurationFileAndAbsoluteOnesStay() throws IOException {
        Path yaml = write("""
                tls:
                  keyStore: tls/server.p12
                  clientAuth: optional
                  trustStore: /etc/wharf/clients.p12
                """);
        TlsConfig tls = ConfigurationFile.load(yaml).server().tls().orElseThrow();
        assertEquals(yaml.toAbsolutePath().getParent().resolve("tls/server.p12"), tls.keyStore());
        assertEquals(Path.of("/etc/wharf/clients.p12"), tls.trustStore());
    }

    @Test
    void httpBlockSetsTheHttpListenerWhichTheSampleTurnsOnAndTheDefaultsLeaveOff() throws IOException {
        assertEquals(new HttpSettings(null, 7480, false), ConfigurationFile.load(SAMPLE).http(),
                "the sample serves metrics and the console on 7480");
        assertNull(ConfigurationFile.defaults().http(), "embedded: no HTTP listener");
        assertNull(ConfigurationFile.load(write("port: 1\n")).http(), "no http: block, no HTTP listener");
        assertEquals(new HttpSettings("127.0.0.1", HttpConfiguration.PORT.defaultValue(), false),
                ConfigurationFile.load(write("http:\n  host: 127.0.0.1\n")).http());
        assertRefused("http:\n  port: 70000\n", "Setting http.port must be between 0 and 65535, was 70000.");
        assertRefused("http:\n  tls: true\n", "Setting http.tls is true, but there is no tls: block");
        assertRefused("port: 7414\nhttp:\n  port: 7414\n", "Setting http.port is 7414, the port of another listener");
    }

    @Test
    void theHttpBlocksKeysAreTheListenersToReadAndRefuse() throws IOException {
        Path typo = write("http:\n  port: 8080\n  hots: 127.0.0.1\n");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(typo));
        assertEquals("Unknown setting 'http.hots' in " + typo + " at line 3. Known settings here: host, "
                + "maxInboundBodyBytes, port, tls.", e.getMessage());
        Path wrongType = write("http:\n  tls: sometimes\n");
        e = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(wrongType));
        assertEquals("Invalid value for setting 'http.tls' in " + wrongType + " at line 2: 'sometimes' is neither; "
                + "give true or false.", e.getMessage());
        Path notABlock = write("http: 7480\n");
        e = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(notABlock));
        assertTrue(e.getMessage().startsWith("Invalid value for setting 'http' in " + notABlock + " at line 1: it must "
                + "be a block of settings"), e.getMessage());
        assertRefused("http:\n  host: ''\n", "Setting http.host must not be empty: leave it out to bind the server's host.");
    }

    @Test
    void tlsSettingsThatDoNotFitTogetherAreRefusedNamingTheSettings() throws IOException {
        assertRefused("tls:\n  port: 7415\n", "TLS needs the server's key and certificate: set tls.keyStore");
        assertRefused("tls:\n  keyStore: a.p12\n  certificate: a.crt\n", "Settings tls.keyStore and tls.certificate");
        assertRefused("tls:\n  keyStore: a.p12\n  protocols: [TLSv1.1]\n", "Setting tls.protocols: 'TLSv1.1' is not supported");
        assertRefused("tls:\n  keyStore: a.p12\n  clientAuth: required\n", "Setting tls.clientAuth is required, so the server needs");
        assertRefused("tls:\n  keyStore: a.p12\n  clientAuth: maybe\n", "Setting tls.clientAuth must be one of none, optional, required");
        assertRefused("tls:\n  keyStore: a.p12\n  engine: gnutls\n", "Setting tls.engine must be one of auto, jdk, openssl");
        assertRefused("port: 7500\ntls:\n  keyStore: a.p12\n  port: 7500\n", "Settings port and tls.port are both 7500");
        assertRefused("tls:\n  keyStore: a.p12\n  keystorePassword: x\n", "Unknown setting 'tls.keystorePassword'");
    }

    @Test
    void memorySettingsSetTheBudgetsAndPolicies() throws IOException {
        ServerConfig config = ConfigurationFile.load(write("""
                maxMemoryBytes: 1000000000
                memoryPolicy: fail
                maxSubscriptionBytes: 5000000
                producerWindowBytes: 65536
                fanOutWindowBytes: 1048576
                topics:
                  - filter: prices/#
                    maxBytes: 100000
                    policy: drop
                  - filter: orders/+
                maxPageBytes: 3000000000
                pageFullPolicy: fail
                queues:
                  - name: ORDERS
                    maxBytes: 2000000
                    policy: block
                  - name: INVOICES
                    maxBytes: 1000000
                    policy: page
                    maxPageBytes: 50000000
                    pageFullPolicy: block
                """)).server();
        assertEquals(3_000_000_000L, config.maxPageBytes());
        assertEquals(MemoryPolicy.FAIL, config.pageFullPolicy());
        assertEquals(1_000_000_000L, config.maxMemoryBytes());
        assertEquals(MemoryPolicy.FAIL, config.memoryPolicy());
        assertEquals(5_000_000L, config.maxSubscriptionBytes());
        assertEquals(65_536, config.producerWindowBytes());
        assertEquals(1_048_576L, config.fanOutWindowBytes());
        assertEquals(List.of(TopicDefinition.of("prices/#").with(TopicConfiguration.MAX_BYTES, 100_000L)
                        .with(TopicConfiguration.POLICY, "drop"), TopicDefinition.of("orders/+")),
                config.topics());
        assertEquals(List.of(QueueDefinition.named("ORDERS").with(QueueConfiguration.MAX_BYTES, 2_000_000L)
                        .with(QueueConfiguration.POLICY, "block"),
                QueueDefinition.named("INVOICES").with(QueueConfiguration.MAX_BYTES, 1_000_000L)
                        .with(QueueConfiguration.POLICY, "page").with(QueueConfiguration.MAX_PAGE_BYTES, 50_000_000L)
                        .with(QueueConfiguration.PAGE_FULL_POLICY, "block")), config.queues());

        ServerConfig sample = ConfigurationFile.load(SAMPLE).server();
        assertEquals(Configuration.MAX_MEMORY_BYTES.defaultValue(), sample.maxMemoryBytes());
        assertEquals(MemoryPolicy.PAGE, sample.memoryPolicy(), "the sample's queues page past their budgets");
        assertEquals(Configuration.MAX_PAGE_BYTES.defaultValue(), sample.maxPageBytes());
        assertEquals(MemoryPolicy.BLOCK, sample.pageFullPolicy());
        assertEquals(Configuration.MAX_SUBSCRIPTION_BYTES.defaultValue(), sample.maxSubscriptionBytes());
        assertEquals(Configuration.PRODUCER_WINDOW_BYTES.defaultValue(), sample.producerWindowBytes());
        assertEquals(Configuration.FAN_OUT_WINDOW_BYTES.defaultValue(), sample.fanOutWindowBytes());
        assertEquals(List.of(), sample.topics());
    }

    @Test
    void memorySettingsThatMakeNoSenseAreRefusedNamingTheSetting() throws IOException {
        assertRefused("memoryPolicy: sometimes\n", "Setting memoryPolicy must be block, fail, drop or page, was 'sometimes'");
        assertRefused("memoryPolicy: drop\n", "Setting memoryPolicy must be page, block or fail, was drop (drop is for topics");
        assertRefused("queues:\n  - name: Q\n    policy: drop\n", "Setting policy of queue 'Q' must be page, block or fail, was drop");
        assertRefused("queues:\n  - name: Q\n    maxBytes: 0\n", "Setting maxBytes of queue 'Q' must be at least 1, was 0.");
        assertRefused("topics:\n  - filter: a/#\n    policy: often\n", "Setting policy of topic 'a/#' must be block, fail, drop or page");
        assertRefused("pageFullPolicy: page\n", "Setting pageFullPolicy must be block or fail, was page");
        assertRefused("queues:\n  - name: Q\n    maxPageBytes: 0\n", "Setting maxPageBytes of queue 'Q' must be at least 1");
        assertRefused("topics:\n  - maxBytes: 5\n", "Topic number 1 under 'topics' has no filter.");
        assertRefused("maxSubscriptionBytes: -1\n", "Setting maxSubscriptionBytes must be 0 (none) or more, was -1.");
        assertRefused("producerWindowBytes: 10\n", "Setting producerWindowBytes must be at least 1024, was 10.");
        assertRefused("fanOutWindowBytes: 0\n", "Setting fanOutWindowBytes must be at least 1024, was 0.");
    }

    private void assertRefused(String yaml, String start) throws IOException {
        Path file = write(yaml);
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ConfigurationFile.load(file));
        assertTrue(e.getMessage().startsWith(start), e.getMessage());
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    }

    private Path write(String yaml) throws IOException {
        Path file = dir.resolve("wharf.yaml");
        Files.writeString(file, yaml);
        return file;
    }
}
