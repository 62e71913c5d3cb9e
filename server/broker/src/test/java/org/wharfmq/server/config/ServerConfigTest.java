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
    void fluentQueueDefinitionReplacesAnEarlierOneOfTheSameName() {
        ServerConfig config = ServerConfig.builder().queue("A").queue("B", 5).queue("A", 7).build();
        assertEquals(List.of(new QueueDefinition("B", 5L), new QueueDefinition("A", 7L)), config.queues());
    }

    @Test
    void queuesGivenAsAListKeepARepeatedNameForValidationToRefuse() {
        ServerConfig.Builder builder = ServerConfig.builder().queue("OLD")
                .queues(List.of(new QueueDefinition("A", null), new QueueDefinition("A", 3L)));
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
        assertEquals(List.of(new QueueDefinition("A", null)), built.queues());
        assertTrue(built.autoCreate());
        assertEquals(List.of(new QueueDefinition("A", null), new QueueDefinition("C", null)), derived.queues());
        assertEquals(1234, derived.port());
        assertThrows(UnsupportedOperationException.class, () -> built.queues().add(new QueueDefinition("D", null)));
    }
}
