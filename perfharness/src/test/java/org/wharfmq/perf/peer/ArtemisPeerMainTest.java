package org.wharfmq.perf.peer;

import org.junit.jupiter.api.Test;

import java.util.logging.Level;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The peer is set up as a stock broker: its audit loggers, which would log every message, are off. */
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
    void theAcceptorHasTheStockSocketBuffers() {
        assertTrue(ArtemisPeerMain.ACCEPTOR_PARAMETERS.contains("tcpSendBufferSize=1048576"));
        assertTrue(ArtemisPeerMain.ACCEPTOR_PARAMETERS.contains("tcpReceiveBufferSize=1048576"));
    }
}
