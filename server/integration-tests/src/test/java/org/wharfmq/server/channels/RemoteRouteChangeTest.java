package org.wharfmq.server.channels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.InvalidDestinationException;
import javax.jms.MessageProducer;
import javax.jms.Session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A producer that puts to the same name on another queue manager message after message, as a responder replies to
 * {@code QM1.R1/REPLY1}, has the name resolved once and remembered by its session; every change of the definitions
 * (a queue-manager alias, a remote queue or a transmission queue defined, altered or deleted with {@code wharf admin})
 * sends its next message the new way, or refuses it when there is none.
 */
class RemoteRouteChangeTest {

    private TestServer testServer;
    private Connection connection;
    private Session session;
    /** One producer for every message, as a responder's: the session that remembers the route is the same. */
    private MessageProducer producer;

    @BeforeEach
    void start() throws Exception {
        testServer = TestServer.start(c -> c.name("QM1").autoCreate(false),
                config -> WharfServer.start(config, new AdminPlugin()));
        admin("define", "queue", "XMIT.A", "--usage", "transmission");
        admin("define", "queue", "XMIT.B", "--usage", "transmission");
        connection = new WharfConnectionFactory(testServer.server().tcpUrl()).createConnection();
        session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        producer = session.createProducer(null);
        producer.setDeliveryMode(DeliveryMode.PERSISTENT); // stored (or refused) when send returns
    }

    @AfterEach
    void stop() throws Exception {
        connection.close();
        testServer.close();
    }

    @Test
    void theNextReplyToAQueueManagerAliasGoesTheWayItsNewDefinitionSays() throws Exception {
        admin("define", "remote", "QM7", "--remote-qmgr", "QM2", "--xmitq", "XMIT.A");
        send("QM7/REPLY");
        send("QM7/REPLY");
        assertEquals(2, depth("XMIT.A"));

        admin("delete", "remote", "QM7");
        admin("define", "remote", "QM7", "--remote-qmgr", "QM3", "--xmitq", "XMIT.B");
        send("QM7/REPLY");
        assertEquals(2, depth("XMIT.A"));
        assertEquals(1, depth("XMIT.B"));

        admin("delete", "remote", "QM7");
        InvalidDestinationException noWay = assertThrows(InvalidDestinationException.class, () -> send("QM7/REPLY"));
        assertTrue(noWay.getMessage().startsWith("Queue 'QM7/REPLY' is for queue manager QM7, which queue manager QM1"
                + " has no way to"), noWay.getMessage());
        assertEquals(3, depth("XMIT.A") + depth("XMIT.B"));
    }

    @Test
    void theNextPutToAQueueManagerFollowsItsTransmissionQueueDefinedAlteredAndDeleted() throws Exception {
        admin("define", "remote", "QM7", "--xmitq", "XMIT.A");
        send("QM7/REPLY");
        admin("delete", "remote", "QM7");
        admin("define", "queue", "QM7", "--usage", "transmission"); // named as the queue manager: the way there
        send("QM7/REPLY");
        assertEquals(1, depth("XMIT.A"));
        assertEquals(1, depth("QM7"));

        admin("alter", "queue", "QM7", "--usage", "normal");
        assertThrows(InvalidDestinationException.class, () -> send("QM7/REPLY"));
        assertEquals(1, depth("QM7"));

        admin("alter", "queue", "QM7", "--usage", "transmission");
        send("QM7/REPLY");
        assertEquals(2, depth("QM7"));
        admin("delete", "queue", "QM7", "--force");
        assertThrows(InvalidDestinationException.class, () -> send("QM7/REPLY"));
        assertEquals(1, depth("XMIT.A"));
    }

    @Test
    void theNextPutToARemoteQueueDefinitionGoesTheWayItsNewDefinitionSays() throws Exception {
        admin("define", "remote", "STOCK", "--remote-queue", "STOCK", "--remote-qmgr", "QM2", "--xmitq", "XMIT.A");
        send("STOCK");
        admin("delete", "remote", "STOCK");
        admin("define", "remote", "STOCK", "--remote-queue", "STOCK", "--remote-qmgr", "QM3", "--xmitq", "XMIT.B");
        send("STOCK");
        assertEquals(1, depth("XMIT.A"));
        assertEquals(1, depth("XMIT.B"));

        admin("delete", "queue", "XMIT.B", "--force");
        InvalidDestinationException gone = assertThrows(InvalidDestinationException.class, () -> send("STOCK"));
        assertTrue(gone.getMessage().startsWith("Transmission queue 'XMIT.B', named by remote queue 'STOCK', does not"
                + " exist"), gone.getMessage());
        assertEquals(1, depth("XMIT.A"));
    }

    private void send(String queue) throws Exception {
        producer.send(session.createQueue(queue), session.createTextMessage("for " + queue));
    }

    private long depth(String queue) {
        return testServer.server().queueManager().depth(queue);
    }

    /** {@code wharf admin words...}, which must succeed. */
    private void admin(String... words) {
        AdminCli.ok(testServer.server().tcpUrl(), words);
    }
}
