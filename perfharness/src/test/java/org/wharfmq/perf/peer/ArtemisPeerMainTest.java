package org.wharfmq.perf.peer;

import org.apache.activemq.artemis.api.core.TransportConfiguration;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.remoting.impl.netty.TransportConstants;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import java.util.logging.Level;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The peer is set up as a stock broker: its audit loggers, which would log every message, are off; its acceptor is the stock one. */
class ArtemisPeerMainTest {

    @Test
    void auditLoggersAreOffAndOtherArtemisLoggingIsNot() {
        ArtemisPeerMain.silenceAuditLoggers();
        for (String name : new String[] {"org.apache.activemq.audit.base", "org.apache.activemq.audit.resource",
                "org.apache.activemq.audit.message"}) {
            assertFalse(Logger.getLogger(name).isLoggable(Level.INFO), name + " would log every message");
        }
        assertTrue(Logger.getLogger("org.apache.activemq.artemis.core.server").isLoggable(Level.INFO),
                "the broker's own INFO log stays, as in a stock broker");
    }

    @Test
    void theAcceptorIsTheStockOneAsArtemisReadsIt() throws Exception {
        // parsed by Artemis itself and read back under its own names: a misspelt key would be missing here
        Configuration config = ArtemisPeerMain.configuration(61616, true, true, Path.of("target", "artemis-config-test"));
        Set<TransportConfiguration> acceptors = config.getAcceptorConfigurations();
        assertEquals(1, acceptors.size());
        Map<String, Object> params = acceptors.iterator().next().getParams();
        assertEquals("1048576", String.valueOf(params.get(TransportConstants.TCP_SENDBUFFER_SIZE_PROPNAME)));
        assertEquals("1048576", String.valueOf(params.get(TransportConstants.TCP_RECEIVEBUFFER_SIZE_PROPNAME)));
        assertEquals("true", String.valueOf(params.get(TransportConstants.USE_EPOLL_PROP_NAME)));
        assertEquals("CORE", String.valueOf(params.get(TransportConstants.PROTOCOLS_PROP_NAME)));
        assertEquals("127.0.0.1", String.valueOf(params.get(TransportConstants.HOST_PROP_NAME)));
        assertEquals("61616", String.valueOf(params.get(TransportConstants.PORT_PROP_NAME)));
        assertTrue(config.isJournalSyncTransactional() && config.isJournalSyncNonTransactional(),
                "synced like Wharf's durability fsync");
    }

    /**
     * As a stock broker.xml, every address has a dead-letter and an expiry address, both queues defined: without them
     * Artemis logs two warnings for every queue it creates (each of PS-T's 10,000 dummy subscriptions is one).
     */
    @Test
    void everyAddressHasTheStockDeadLetterAndExpiryAddresses() throws Exception {
        Configuration config = ArtemisPeerMain.configuration(61616, true, true, Path.of("target", "artemis-config-test"));
        org.apache.activemq.artemis.core.settings.impl.AddressSettings every = config.getAddressSettings().get("#");
        assertEquals("DLQ", String.valueOf(every.getDeadLetterAddress()));
        assertEquals("ExpiryQueue", String.valueOf(every.getExpiryAddress()));
        assertEquals(Set.of("DLQ", "ExpiryQueue"), config.getQueueConfigs().stream()
                .map(q -> String.valueOf(q.getName())).collect(java.util.stream.Collectors.toSet()));
    }
}
