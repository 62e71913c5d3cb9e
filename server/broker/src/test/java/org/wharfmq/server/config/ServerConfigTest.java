package org.wharfmq.server.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.Configuration;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ServerConfigTest {

    /** The sample shipped in the repository (wharf.root: set by the build). */
    private static final Path SAMPLE = Path.of(System.getProperty("wharf.root"), "config", "wharf.yaml");

    @TempDir
    Path dir;

    @Test
    void sampleConfigurationParses() {
        ServerConfig config = ServerConfig.load(SAMPLE);
        assertEquals("WHARF", config.name());
        assertEquals("0.0.0.0", config.host());
        assertEquals(7414, config.port());
        assertEquals("wharf", config.inVmName());
        assertEquals(Path.of("data"), config.dataDirectory());
        assertTrue(config.autoCreate());
        assertFalse(config.remoteDeploy(), "the sample refuses flow jars sent over the wire");
        assertEquals(10_000, config.maxQueues());
        assertEquals(300_000L, config.autoDeleteDelayMillis());
        assertEquals(104_857_600, config.maxMessageLength());
        assertEquals(5_000_000L, config.maxQueueDepth());
        assertEquals(10_000, config.heartbeatMillis());
        assertEquals(Runtime.getRuntime().availableProcessors(), config.ioThreads(), "0 in the sample: one per processor");
        assertEquals(List.of(new QueueDefinition("REQUEST", null), new QueueDefinition("REPLY", null),
                new QueueDefinition("SYSTEM.DEAD.LETTER.QUEUE", 1_000_000L)), config.queues());
    }

    @Test
    void defaultsAreTheNamedConstants() {
        ServerConfig config = ServerConfig.defaults();
        assertEquals(Configuration.DEFAULT_PORT, config.port());
        assertEquals(7414, config.port());
        assertTrue(config.autoCreate());
        assertFalse(config.remoteDeploy(), "off unless the configuration says otherwise");
        assertEquals(Configuration.DEFAULT_MAX_QUEUES, config.maxQueues());
        assertEquals(Configuration.DEFAULT_AUTO_DELETE_DELAY_MILLIS, config.autoDeleteDelayMillis());
        assertEquals(100 * 1024 * 1024, config.maxMessageLength());
        assertEquals(5_000_000L, config.maxQueueDepth());
        assertEquals(List.of(), config.queues());
    }

    @Test
    void settingsLeftOutKeepTheirDefaults() throws IOException {
        ServerConfig config = ServerConfig.load(write("port: 9999\n"));
        assertEquals(9999, config.port());
        assertEquals(Configuration.DEFAULT_HEARTBEAT_MILLIS, config.heartbeatMillis());
        assertEquals(ServerConfig.defaults().toString().replace("port=7414", "port=9999"), config.toString());
    }

    @Test
    void ioThreadsSetsTheNetworkThreadCount() throws IOException {
        assertEquals(3, ServerConfig.load(write("ioThreads: 3\n")).ioThreads());
        assertEquals(Runtime.getRuntime().availableProcessors(), ServerConfig.defaults().ioThreads());
    }

    @Test
    void emptyFileMeansDefaults() throws IOException {
        assertEquals(ServerConfig.defaults().toString(), ServerConfig.load(write("")).toString());
    }

    @Test
    void unknownKeyIsAnErrorNamingTheKeyAndFile() throws IOException {
        Path file = write("port: 7414\nmaxQueueDeph: 10\n");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ServerConfig.load(file));
        assertTrue(e.getMessage().startsWith("Unknown setting 'maxQueueDeph' in " + file + " at line 2."), e.getMessage());
        assertTrue(e.getMessage().contains("maxQueueDepth"), "the known settings are listed: " + e.getMessage());
    }

    @Test
    void unknownKeyInsideAQueueNamesItsPath() throws IOException {
        Path file = write("queues:\n  - name: A\n  - name: B\n    depth: 5\n");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ServerConfig.load(file));
        assertTrue(e.getMessage().startsWith("Unknown setting 'queues[1].depth'"), e.getMessage());
        assertTrue(e.getMessage().contains("maxDepth"), e.getMessage());
    }

    @Test
    void wrongTypeNamesTheSetting() throws IOException {
        Path file = write("port: lots\n");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ServerConfig.load(file));
        assertTrue(e.getMessage().startsWith("Invalid value for setting 'port' in " + file + " at line 1"), e.getMessage());
    }

    @Test
    void outOfRangeValuesAreRefused() throws IOException {
        Path file = write("port: 70000\n");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ServerConfig.load(file));
        assertEquals("Setting port must be between 0 and 65535, was 70000. (in " + file + ")", e.getMessage());
        assertThrows(ConfigurationException.class, () -> ServerConfig.defaults().maxQueueDepth(0).validate());
        assertThrows(ConfigurationException.class, () -> ServerConfig.defaults().ioThreads(-1).validate());
        assertThrows(ConfigurationException.class, () -> ServerConfig.defaults().queue("Q", 0).validate());
        ConfigurationException tooFew = assertThrows(ConfigurationException.class,
                () -> ServerConfig.defaults().maxQueues(1).queue("A").queue("B").validate());
        assertEquals("Setting maxQueues must be at least 1 and at least the number of queues defined under 'queues' "
                + "(2), was 1.", tooFew.getMessage());
    }

    @Test
    void duplicateQueueInFileIsRefused() throws IOException {
        Path file = write("queues:\n  - name: A\n  - name: A\n");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ServerConfig.load(file));
        assertTrue(e.getMessage().startsWith("Queue 'A' is defined twice"), e.getMessage());
    }

    @Test
    void missingFileIsNamed() {
        Path missing = dir.resolve("nope.yaml");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ServerConfig.load(missing));
        assertEquals("Configuration file " + missing + " does not exist.", e.getMessage());
    }

    @Test
    void fluentQueueDefinitionReplacesAnEarlierOneOfTheSameName() {
        ServerConfig config = ServerConfig.defaults().queue("A").queue("B", 5).queue("A", 7);
        assertEquals(List.of(new QueueDefinition("B", 5L), new QueueDefinition("A", 7L)), config.queues());
    }

    private Path write(String yaml) throws IOException {
        Path file = dir.resolve("wharf.yaml");
        Files.writeString(file, yaml);
        return file;
    }
}
