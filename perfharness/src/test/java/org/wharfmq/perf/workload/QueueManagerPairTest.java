package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.cli.ConfigurationFile;
import org.wharfmq.server.config.ServerConfig;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The two queue managers' configuration files that RR-5, RR-5b and OW-5 start, read as the server reads them. */
class QueueManagerPairTest {

    /**
     * Both get the limits the harness gives every server of its own ({@link ServerMain#limitsYaml()}): with the stock
     * 10 s handshake timeout, RR-5's responders' logins to QM2 were closed at load 40 to 70 and the step measured
     * nothing (sessions 29 to 31).
     */
    @Test
    void bothQueueManagersGetThePerfServersLimits(@TempDir Path dir) throws Exception {
        QueueManagerPair pair = QueueManagerPair.write(dir, "step", List.of("REQUEST1"), List.of("REPLY1"), 1);
        for (Path config : List.of(pair.qm1Config(), pair.qm2Config())) {
            ServerConfig server = ConfigurationFile.load(config).server();
            assertEquals(ServerMain.HANDSHAKE_TIMEOUT_MILLIS, server.handshakeTimeoutMillis(), config.toString());
            assertEquals(ServerMain.MAX_CONNECTIONS, server.maxConnections(), config.toString());
            assertEquals(ServerMain.MAX_CONNECTIONS, server.maxConnectionsPerAddress(), config.toString());
        }
    }
}
