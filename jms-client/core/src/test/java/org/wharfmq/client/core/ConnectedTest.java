package org.wharfmq.client.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.server.TestServer;

/** A core test with a real server and one core connection to it, without reconnection, closed after each test. */
abstract class ConnectedTest {
    TestServer server;
    CoreConnection connection;

    @BeforeEach
    void connect() throws Exception {
        server = TestServer.start();
        connection = CoreConnection.connect(ConnectionSettings.of(BrokerAddress.tcp("127.0.0.1",
                server.server().tcpPort()), null, null, getClass().getSimpleName()), ConnectionListener.NONE);
    }

    @AfterEach
    void close() {
        connection.close();
        server.close();
    }
}
