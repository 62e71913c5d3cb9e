package org.wharfmq.server.config;

import org.junit.jupiter.api.Test;
import org.wharfmq.server.Configuration;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The settings built in code: defaults, fluent setters and validation (the YAML file: ConfigurationFileTest). */
class ServerConfigTest {

    @Test
    void defaultsAreTheNamedConstants() {
        ServerConfig config = ServerConfig.defaults();
        assertEquals(Configuration.PORT.defaultValue(), config.port());
        assertEquals(7414, config.port());
        assertTrue(config.autoCreate());
        assertEquals(Configuration.MAX_QUEUES.defaultValue(), config.maxQueues());
        assertEquals(Configuration.AUTO_DELETE_DELAY_MILLIS.defaultValue(), config.autoDeleteDelayMillis());
        assertEquals(100 * 1024 * 1024, config.maxMessageLength());
        assertEquals(5_000_000L, config.maxQueueDepth());
        assertEquals(List.of(), config.queues());
    }

    @Test
    void outOfRangeValuesAreRefused() {
        ConfigurationException port = assertThrows(ConfigurationException.class,
                () -> ServerConfig.builder().port(70000).build());
        assertEquals("Setting port must be between 0 and 65535, was 70000.", port.getMessage());
        assertThrows(ConfigurationException.class, () -> ServerConfig.builder().maxQueueDepth(0).build());
        assertThrows(ConfigurationException.class, () -> ServerConfig.builder().ioThreads(-1).build());
        assertThrows(ConfigurationException.class, () -> ServerConfig.builder().queue("Q", 0).build());
        ConfigurationException tooFew = assertThrows(ConfigurationException.class,
                () -> ServerConfig.builder().maxQueues(1).queue("A").queue("B").build());
        assertEquals("Setting maxQueues must be at least 1 and at least the number of queues defined under 'queues' "
                + "(2), was 1.", tooFew.getMessage());
    }

    @Test
    void connectionAndHandshakeLimitsDefaultToTheirConstantsAndMustBePositive() {
        ServerConfig config = ServerConfig.defaults();
        assertEquals(10_000, config.handshakeTimeoutMillis());
        assertEquals(Configuration.MAX_CONNECTIONS.defaultValue(), config.maxConnections());
        assertEquals(Configuration.MAX_CONNECTIONS_PER_ADDRESS.defaultValue(), config.maxConnectionsPerAddress());
        assertEquals(Configuration.MAX_TEMPORARY_QUEUES_PER_CONNECTION.defaultValue(), config.maxTemporaryQueuesPerConnection());
        ServerConfig changed = config.toBuilder().handshakeTimeoutMillis(500).maxConnections(20).maxConnectionsPerAddress(5)
                .maxTemporaryQueuesPerConnection(7).build();
        assertEquals(List.of(500, 20, 5, 7), List.of(changed.handshakeTimeoutMillis(), changed.maxConnections(),
                changed.maxConnectionsPerAddress(), changed.maxTemporaryQueuesPerConnection()));
        assertEquals("Setting maxConnections must be at least 1, was 0.", assertThrows(ConfigurationException.class,
                () -> ServerConfig.builder().maxConnections(0).build()).getMessage());
        assertEquals("Setting handshakeTimeoutMillis must be at least 1, was -5.", assertThrows(ConfigurationException.class,
                () -> ServerConfig.builder().handshakeTimeoutMillis(-5).build()).getMessage());
        assertThrows(ConfigurationException.class, () -> ServerConfig.builder().maxConnectionsPerAddress(0).build());
        assertThrows(ConfigurationException.class, () -> ServerConfig.builder().maxTemporaryQueuesPerConnection(0).build());
    }

    @Test
    void fluentQueueDefinitionReplacesAnEarlierOneOfTheSameName() {
        ServerConfig config = ServerConfig.builder().queue("A").queue("B", 5).queue("A", 7).build();
        assertEquals(List.of(depth("B", 5L), depth("A", 7L)), config.queues());
    }

    @Test
    void queuesGivenAsAListKeepARepeatedNameForValidationToRefuse() {
        ServerConfig.Builder builder = ServerConfig.builder().queue("OLD")
                .queues(List.of(QueueDefinition.named("A"), depth("A", 3L)));
        ConfigurationException e = assertThrows(ConfigurationException.class, builder::build);
        assertEquals("Queue 'A' is defined twice under 'queues'.", e.getMessage());
    }

    @Test
    void aBuiltConfigNeverChangesWhenItsBuilderOrADerivedOneDoes() {
        ServerConfig.Builder builder = ServerConfig.builder().port(1234).queue("A");
        ServerConfig built = builder.build();
        builder.port(4321).queue("B");
        ServerConfig derived = built.toBuilder().autoCreate(false).queue("C").build();
        assertEquals(1234, built.port());
        assertEquals(List.of(QueueDefinition.named("A")), built.queues());
        assertTrue(built.autoCreate());
        assertEquals(List.of(QueueDefinition.named("A"), QueueDefinition.named("C")), derived.queues());
        assertEquals(1234, derived.port());
        assertThrows(UnsupportedOperationException.class, () -> built.queues().add(QueueDefinition.named("D")));
    }

    /** Queue {@code name} with its own depth limit. */
    private static QueueDefinition depth(String name, long maxDepth) {
        return QueueDefinition.named(name).with(QueueConfiguration.MAX_DEPTH, maxDepth);
    }
}
