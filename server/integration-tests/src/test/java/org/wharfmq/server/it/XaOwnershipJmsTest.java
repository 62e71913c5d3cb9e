package org.wharfmq.server.it;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.jms.WharfXAConnectionFactory;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.security.file.SecurityFileRealm;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.XAConnection;
import javax.jms.XASession;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * XA branch ownership as a transaction manager sees it, on a server secured by a security file as docs/security.md
 * sets one up (app1 and app2, each with its own queues, and an admin): app2's XAResource does not see app1's prepared
 * branch in recover() and cannot complete or join app1's branches (XAException naming the Xid); app1 still commits;
 * the admin lists and rolls back a branch whose owner is gone.
 */
class XaOwnershipJmsTest {

    /** How long what the test waits for may take: it bounds a hang only (a loaded machine is slow). */
    private static final long EXPECTED_MS = 30_000;

    @TempDir
    Path dir;
    private SecurityFileRealm realm;
    private TestServer testServer;

    private static String user(String name, String group) {
        return "  " + name + ":\n    password: \"" + ScramCredential.create((name + "-pw").toCharArray(), 4096,
                new SecureRandom()).verifier() + "\"\n    groups: [" + group + "]\n";
    }

    @BeforeEach
    void start() throws Exception {
        Path file = dir.resolve("security.yaml");
        Files.writeString(file, "users:\n" + user("app1", "apps") + user("app2", "apps") + user("ops", "admins")
                + "permissions:\n"
                + "  - queue: \"APP1.**\"\n    send: [user:app1]\n    receive: [user:app1]\n"
                + "  - queue: \"APP2.**\"\n    send: [user:app2]\n    receive: [user:app2]\n"
                + "  - connect: [group:apps, group:admins]\n"
                + "  - admin: [group:admins]\n");
        realm = SecurityFileRealm.open(file);
        testServer = TestServer.start(c -> c.queue("APP1.ORDERS"),
                config -> WharfServer.builder(config).authenticator(realm).accessControl(realm.accessControl()).start());
    }

    @AfterEach
    void stop() {
        testServer.close();
        realm.close();
    }

    private XAConnection xa(String user) throws Exception {
        return new WharfXAConnectionFactory(testServer.server().tcpUrl()).createXAConnection(user, user + "-pw");
    }

    /** app1's branch that sent one persistent message to APP1.ORDERS, ended and prepared. */
    private static void prepareAsApp1(XAConnection app1, XaTest.TestXid xid) throws Exception {
        XASession session = app1.createXASession();
        XAResource resource = session.getXAResource();
        resource.start(xid, XAResource.TMNOFLAGS);
        MessageProducer producer = session.createProducer(session.createQueue("APP1.ORDERS"));
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
        producer.send(session.createTextMessage("balance=100"));
        resource.end(xid, XAResource.TMSUCCESS);
        assertEquals(XAResource.XA_OK, resource.prepare(xid));
    }

    private static void refused(XaTest.XaCall call, XaTest.TestXid xid) {
        XAException e = assertThrows(XAException.class, call::run);
        assertEquals(XAException.XAER_RMERR, e.errorCode, e.getMessage());
        assertTrue(e.getMessage().startsWith("User 'app2' may not ") && e.getMessage().contains(
                "gtrid=" + java.util.HexFormat.of().formatHex(xid.gtrid())) && e.getMessage().contains(
                "that XA branch belongs to another user"), e.getMessage());
    }

    @Test
    void anotherUsersTransactionManagerCannotSeeOrCompleteABranchAndItsOwnerCommits() throws Exception {
        XaTest.TestXid xid = XaTest.TestXid.next();
        try (XAConnection app1 = xa("app1"); XAConnection app2 = xa("app2")) {
            prepareAsApp1(app1, xid);
            XAResource thief = app2.createXASession().getXAResource();
            assertEquals(0, thief.recover(XAResource.TMSTARTRSCAN).length, "app2 does not see app1's branch");
            refused(() -> thief.rollback(xid), xid);
            refused(() -> thief.commit(xid, false), xid);

            XAResource owner = app1.createXASession().getXAResource();
            assertEquals(1, owner.recover(XAResource.TMSTARTRSCAN).length);
            owner.commit(xid, false);
        }
        try (Connection app1 = new WharfConnectionFactory(testServer.server().tcpUrl()).createConnection("app1",
                "app1-pw")) {
            app1.start();
            Session s = app1.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TextMessage m = (TextMessage) s.createConsumer(s.createQueue("APP1.ORDERS")).receive(EXPECTED_MS);
            assertNotNull(m, "app1's commit delivered its message");
            assertEquals("balance=100", m.getText());
        }
    }

    @Test
    void anotherUserCannotJoinAnActiveBranch() throws Exception {
        XaTest.TestXid xid = XaTest.TestXid.next();
        try (XAConnection app1 = xa("app1"); XAConnection app2 = xa("app2")) {
            XAResource owner = app1.createXASession().getXAResource();
            owner.start(xid, XAResource.TMNOFLAGS);
            XAResource thief = app2.createXASession().getXAResource();
            refused(() -> thief.start(xid, XAResource.TMJOIN), xid);
            owner.end(xid, XAResource.TMSUCCESS); // still whole: app2 could not make it rollback-only
            owner.commit(xid, true);
        }
    }

    @Test
    void anAdminListsAndRollsBackABranchWhoseOwnerIsGone() throws Exception {
        XaTest.TestXid xid = XaTest.TestXid.next();
        try (XAConnection app1 = xa("app1")) {
            prepareAsApp1(app1, xid);
        }
        try (XAConnection ops = xa("ops")) {
            XAResource admin = ops.createXASession().getXAResource();
            assertEquals(1, admin.recover(XAResource.TMSTARTRSCAN).length, "an admin sees every user's branch");
            admin.rollback(xid);
            assertEquals(0, admin.recover(XAResource.TMSTARTRSCAN).length);
        }
        assertEquals(0, testServer.server().queueManager().queue("APP1.ORDERS").depth(),
                "the admin's rollback dropped app1's send");
    }
}
