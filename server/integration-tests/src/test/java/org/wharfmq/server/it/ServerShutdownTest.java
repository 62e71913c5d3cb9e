package org.wharfmq.server.it;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A server that stops under a connected client tells the client through its ExceptionListener, once reconnecting
 * (here one quick attempt) finds it gone.
 */
@Timeout(60)
class ServerShutdownTest {

    @ParameterizedTest
    @EnumSource(Transport.class)
    void closingTheServerReachesTheExceptionListener(Transport transport) throws Exception {
        TestServer testServer = TestServer.start();
        Connection connection = null;
        try {
            connection = new WharfConnectionFactory(transport.url(testServer.server())
                    + "?reconnectAttempts=1&reconnectInterval=10&reconnectMaxInterval=10").createConnection();
            CompletableFuture<JMSException> lost = new CompletableFuture<>();
            connection.setExceptionListener(lost::complete);
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("SHUTDOWN"));
            producer.send(session.createTextMessage("before"));

            Closing.closeWithin(testServer, "server");

            assertNotNull(lost.get(15, TimeUnit.SECONDS), "ExceptionListener called with an exception");
            assertThrows(JMSException.class, () -> producer.send(session.createTextMessage("after")),
                    "sending on a connection whose server is gone");
        } finally {
            if (connection != null) {
                Closing.closeWithin(connection, "connection");
            }
            testServer.close();
        }
    }
}
