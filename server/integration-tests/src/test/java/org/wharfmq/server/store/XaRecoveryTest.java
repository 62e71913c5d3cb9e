package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.jms.WharfXAConnectionFactory;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.XAConnection;
import javax.jms.XASession;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The test acts as the transaction manager: a branch receives a request and sends a reply, is prepared, and the server
 * is killed with SIGKILL before the commit. After the restart the branch is in doubt: recover() lists its Xid, the reply
 * is invisible and the request is not redelivered to anyone, until the commit (reply delivered, request gone) or the
 * rollback (request redelivered, reply never seen), from a connection that did not exist before the crash.
 */
@Timeout(120)
@Tag("slow")
class XaRecoveryTest {

    /** How long what the test waits for may take: it bounds a hang only (a loaded machine is slow). */
    private static final long EXPECTED_MS = 30_000;

    @TempDir
    Path data;

    /** The transaction manager's Xid: any Xid implementation, compared by its parts. */
    private record TmXid(int getFormatId, byte[] getGlobalTransactionId, byte[] getBranchQualifier) implements Xid {
    }

    @Test
    void aBranchPreparedBeforeACrashIsInDoubtAfterItAndCommitsThen() throws Exception {
        Xid xid = new TmXid(77, "crash-commit".getBytes(StandardCharsets.UTF_8), new byte[]{1});
        afterACrashBetweenPrepareAndCommit(xid, (tm, requests, replies) -> {
            tm.commit(xid, false);
            TextMessage reply = (TextMessage) replies.receive(EXPECTED_MS);
            assertNotNull(reply, "the reply appears at the commit");
            assertEquals("reply", reply.getText());
            assertNull(requests.receiveNoWait(), "the request is gone for good");
            assertEquals(0, tm.recover(XAResource.TMSTARTRSCAN).length);
        });
    }

    @Test
    void aBranchPreparedBeforeACrashRolledBackAfterItGivesBackTheRequestRedelivered() throws Exception {
        Xid xid = new TmXid(77, "crash-rollback".getBytes(StandardCharsets.UTF_8), new byte[]{2});
        afterACrashBetweenPrepareAndCommit(xid, (tm, requests, replies) -> {
            tm.rollback(xid);
            Message request = requests.receive(EXPECTED_MS);
            assertNotNull(request, "the request comes back at the rollback");
            assertEquals("request", ((TextMessage) request).getText());
            assertTrue(request.getJMSRedelivered());
            assertEquals(2, request.getIntProperty("JMSXDeliveryCount"));
            assertNull(replies.receiveNoWait(), "the reply is never seen");
        });
    }

    /** What the transaction manager does once it finds the branch in doubt, and what the application sees then. */
    @FunctionalInterface
    private interface Outcome {
        void decide(XAResource tm, MessageConsumer requests, MessageConsumer replies) throws Exception;
    }

    /**
     * {@link #prepareThenKill}, restart, and checks the branch is in doubt (listed, its reply invisible, its request
     * delivered to no one) before {@code outcome} decides it from connections made after the restart.
     */
    private void afterACrashBetweenPrepareAndCommit(Xid xid, Outcome outcome) throws Exception {
        prepareThenKill(xid);
        try (ServerProcess server = ServerProcess.start(data)) {
            assertInDoubt(server, xid);
            try (XAConnection tm = new WharfXAConnectionFactory(server.url()).createXAConnection();
                 Connection app = new WharfConnectionFactory(server.url()).createConnection()) {
                app.start();
                Session session = app.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer requests = session.createConsumer(session.createQueue("REQUESTS"));
                MessageConsumer replies = session.createConsumer(session.createQueue("REPLIES"));
                assertNull(replies.receiveNoWait(), "the reply of a branch in doubt is invisible");
                assertNull(requests.receiveNoWait(), "the request a branch in doubt consumed is delivered to no one");
                outcome.decide(tm.createXASession().getXAResource(), requests, replies);
            }
        }
    }

    /** {@link #prepare}, then SIGKILL before anything else. */
    private void prepareThenKill(Xid xid) throws Exception {
        try (ServerProcess server = ServerProcess.start(data)) {
            try (XAConnection connection = new WharfXAConnectionFactory(server.url()).createXAConnection()) {
                prepare(connection, xid);
                server.kill();
            }
        }
    }

    /** A request waits; a branch consumes it and sends a reply (both persistent), and is prepared. */
    private static void prepare(XAConnection connection, Xid xid) throws Exception {
        connection.start();
        send(connection, "REQUESTS", "request");
        XASession session = connection.createXASession();
        XAResource resource = session.getXAResource();
        resource.start(xid, XAResource.TMNOFLAGS);
        TextMessage request = (TextMessage) session.createConsumer(session.createQueue("REQUESTS")).receive(EXPECTED_MS);
        assertEquals("request", request.getText());
        MessageProducer producer = session.createProducer(session.createQueue("REPLIES"));
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
        producer.send(session.createTextMessage("reply"));
        resource.end(xid, XAResource.TMSUCCESS);
        assertEquals(XAResource.XA_OK, resource.prepare(xid)); // answered once the PREPARE record is synced
    }

    /** recover() lists the Xid, and the start's log names it. */
    private static void assertInDoubt(ServerProcess server, Xid xid) throws Exception {
        String gtrid = HexFormat.of().formatHex(xid.getGlobalTransactionId());
        String log = server.outputSoFar();
        assertTrue(log.contains("1 prepared XA transactions in doubt") && log.contains("gtrid=" + gtrid), log);
        try (XAConnection tm = new WharfXAConnectionFactory(server.url()).createXAConnection()) {
            Xid[] inDoubt = tm.createXASession().getXAResource().recover(XAResource.TMSTARTRSCAN);
            assertEquals(1, inDoubt.length);
            assertEquals(xid.getFormatId(), inDoubt[0].getFormatId());
            assertTrue(Arrays.equals(xid.getGlobalTransactionId(), inDoubt[0].getGlobalTransactionId()));
            assertTrue(Arrays.equals(xid.getBranchQualifier(), inDoubt[0].getBranchQualifier()));
        }
    }

    private static void send(Connection connection, String queue, String text) throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(session.createQueue(queue));
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
        producer.send(session.createTextMessage(text));
        session.close();
    }
}
