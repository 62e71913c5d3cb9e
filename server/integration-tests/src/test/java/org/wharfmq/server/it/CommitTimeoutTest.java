package org.wharfmq.server.it;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.JournalMessageStore;
import org.wharfmq.server.store.JournalReplication;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A commit whose answer comes after the client's requestTimeout, as on a replicated queue manager waiting for a
 * majority under load: the server commits it all the same, so the client must say the outcome is unknown
 * (TRANSACTION_OUTCOME_UNKNOWN), never report a plain failure that tells the application to do the work again. The
 * queue manager and its journal are real; the journal's replication is held by the test, as a majority that has not
 * answered yet, and released once the client has given up.
 */
@Timeout(120)
class CommitTimeoutTest {

    /**
     * The responder's connection's: long enough for its other requests on a loaded machine; the held replication
     * makes the commit's answer late whatever it is. The other connection keeps the default.
     */
    private static final int REQUEST_TIMEOUT_MILLIS = 5000;

    private final List<CompletableFuture<Void>> held = new ArrayList<>();
    private boolean holding;
    private WharfServer server;

    /** The journal's batches: confirmed at once, or held while {@link #holding}. The journal writer's thread. */
    private synchronized CompletableFuture<Void> replicate() {
        CompletableFuture<Void> majority = new CompletableFuture<>();
        if (holding) {
            held.add(majority);
        } else {
            majority.complete(null);
        }
        return majority;
    }

    private synchronized void hold() {
        holding = true;
    }

    private synchronized void release() {
        holding = false;
        held.forEach(f -> f.complete(null));
        held.clear();
    }

    @AfterEach
    void stop() {
        release();
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aCommitAnsweredAfterTheRequestTimeoutHasAnUnknownOutcomeAndIsCommittedOnce(@TempDir Path data)
            throws Exception {
        ServerConfig config = ServerConfig.builder().host("127.0.0.1").port(0).inVmName("commit-timeout")
                .dataDirectory(data).build();
        JournalReplication replication = records -> replicate();
        server = WharfServer.builder(config).store(JournalMessageStore.openReplicated(config, replication)).start();
        try (Connection connection = new WharfConnectionFactory(server.tcpUrl()).createConnection();
             Connection impatient = new WharfConnectionFactory(server.tcpUrl() + "?requestTimeout="
                     + REQUEST_TIMEOUT_MILLIS).createConnection()) {
            connection.start();
            impatient.start();
            Session plain = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            plain.createProducer(plain.createQueue("CT.REQUEST")).send(plain.createTextMessage("request"),
                    DeliveryMode.PERSISTENT, 4, 0);

            Session responder = impatient.createSession(true, Session.SESSION_TRANSACTED);
            MessageConsumer requests = responder.createConsumer(responder.createQueue("CT.REQUEST"));
            MessageProducer replies = responder.createProducer(responder.createQueue("CT.REPLY"));
            Message request = requests.receive(30_000);
            assertNotNull(request, "the request was not delivered");
            replies.send(responder.createTextMessage("reply"), DeliveryMode.PERSISTENT, 4, 0);
            hold(); // the commit's batch waits for a majority that answers only after the client gave up
            JMSException late = assertThrows(JMSException.class, responder::commit);
            assertEquals("TRANSACTION_OUTCOME_UNKNOWN", late.getErrorCode(), late.getMessage());
            assertTrue(late.getMessage().contains("requestTimeout"), late.getMessage());

            release(); // the majority answers: the server carries the commit out
            Session reader = connection.createSession(true, Session.SESSION_TRANSACTED);
            MessageConsumer replyQueue = reader.createConsumer(reader.createQueue("CT.REPLY"));
            TextMessage reply = (TextMessage) replyQueue.receive(30_000);
            assertNotNull(reply, "the reply the late commit sent never came");
            assertEquals("reply", reply.getText());
            reader.commit(); // answered: the server has settled it, so the depths below count nothing in flight
            // the commit acknowledged the request with the same record: it is neither held nor back on its queue
            assertEquals(0, server.queueManager().queue("CT.REQUEST").depth(), "the request was not acknowledged");
            assertEquals(0, server.queueManager().queue("CT.REPLY").depth(), "a second reply is on the reply queue");

            // the session carries on with a new transaction
            replies.send(responder.createTextMessage("next"), DeliveryMode.PERSISTENT, 4, 0);
            responder.commit();
            assertEquals("next", ((TextMessage) replyQueue.receive(30_000)).getText());
            reader.commit();
        }
    }
}
