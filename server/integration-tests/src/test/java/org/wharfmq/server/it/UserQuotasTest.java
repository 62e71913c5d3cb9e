package org.wharfmq.server.it;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestClock;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.queue.DeadLetters;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.security.AuditLog;
import org.wharfmq.server.security.file.SecurityFileRealm;

import javax.jms.Connection;
import javax.jms.InvalidClientIDException;
import javax.jms.JMSException;
import javax.jms.MessageProducer;
import javax.jms.ResourceAllocationException;
import javax.jms.Session;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Quotas per user from the security file (docs/security.md, "Quotas"), attacked as issue 31 did: one user's flood of
 * queues created by use, pipelined over two connections, and of temporary queues over several connections, stops at
 * its quota while a second user still creates queues; the connection quota; a client id kept for one user; a REJECT
 * flood that would fill the dead-letter queue. Each refusal names the user, the quota and the setting.
 */
@Timeout(120)
class UserQuotasTest {

    private static final long DELAY = 60_000;

    @TempDir
    Path dir;
    private Path file;
    private SecurityFileRealm realm;
    private TestServer testServer;
    private WharfServer server;
    private WharfConnectionFactory factory;
    private final TestClock clock = new TestClock();
    private final List<AutoCloseable> opened = new ArrayList<>();

    private static String verifier(String password) {
        return ScramCredential.create(password.toCharArray(), 4096, new SecureRandom()).verifier();
    }

    private static String securityFile(String extraQuotas) {
        return "users:\n"
                + "  app1:\n    password: \"" + verifier("app1-pw") + "\"\n    groups: [apps]\n"
                + "  app2:\n    password: \"" + verifier("app2-pw") + "\"\n    groups: [apps]\n"
                + "  ops:\n    password: \"" + verifier("ops-pw") + "\"\n    groups: [admins]\n"
                + "permissions:\n"
                + "  - queue: \"APP1.**\"\n    send: [user:app1]\n    receive: [user:app1]\n    create: [user:app1]\n"
                + "  - queue: \"APP2.**\"\n    send: [user:app2]\n    receive: [user:app2]\n    create: [user:app2]\n"
                + "  - queue: \"OPS.**\"\n    send: [group:admins]\n    create: [group:admins]\n"
                + "  - connect: [group:apps, group:admins]\n"
                + "  - admin: [group:admins]\n"
                + "quotas:\n"
                + "  default: {createdQueues: 20, temporaryQueues: 10, connections: 4, rejectsPerMinute: 5}\n"
                + extraQuotas
                + "clientIds:\n"
                + "  \"app1-*\": user:app1\n";
    }

    @BeforeEach
    void start() throws Exception {
        file = dir.resolve("security.yaml");
        Files.writeString(file, securityFile(""));
        realm = SecurityFileRealm.open(file);
        testServer = TestServer.start(c -> c.autoDeleteDelayMillis(DELAY), config -> WharfServer.builder(config)
                .clock(clock).authenticator(realm).accessControl(realm.accessControl()).start());
        server = testServer.server();
        factory = new WharfConnectionFactory(server.tcpUrl());
    }

    @AfterEach
    void stop() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            Closing.closeWithin(opened.get(i), "resource");
        }
        testServer.close();
        realm.close();
    }

    /**
     * The flood: CREATE_PRODUCERs on new queues pipelined by one user over two connections at once. Exactly
     * its quota of them succeed; the queues of a second user and an admin's (unlimited) are still created; a queue
     * deleted (by an administrator, or once unused) gives its place back; a reloaded file raises the quota.
     */
    @Test
    void aPipelinedQueueFloodStopsAtTheUsersQuotaAndAnotherUserStillCreatesQueues() throws Exception {
        RawFrameClient a = raw("app2");
        RawFrameClient b = raw("app2");
        a.sendRaw(creations(1, "APP2.FLOOD.", 0, 40));
        b.sendRaw(creations(1, "APP2.FLOOD.", 40, 40));
        List<Frame.Error> refused = new ArrayList<>();
        int createdByA = answered(a, 40, refused);
        int createdByB = answered(b, 40, refused);
        assertEquals(20, createdByA + createdByB, "the quota, however the two connections' creations interleave");
        assertEquals(60, refused.size());
        for (Frame.Error e : refused) {
            assertEquals(ErrorCode.TOO_MANY_QUEUES, e.code());
            assertEquals(" cannot be created: user 'app2' is at its quota of 20 queues created by use"
                    + " (quotas.default.createdQueues in the security file). Let the queues it no longer uses be deleted"
                    + " once unused (setting autoDeleteDelayMillis), or raise its quota there.",
                    e.message().substring(e.message().indexOf('\'', e.message().indexOf('\'') + 1) + 1));
        }
        assertEquals(20, floodQueues(), "a refusal creates nothing");

        try (Connection app1 = factory.createConnection("app1", "app1-pw")) { // the second user still works
            Session s = app1.createSession(false, Session.AUTO_ACKNOWLEDGE);
            s.createProducer(s.createQueue("APP1.NEW")).close();
            s.createTemporaryQueue();
        }
        assertTrue(server.queueManager().exists("APP1.NEW"));
        RawFrameClient ops = raw("ops"); // an admin: no quota unless the file sets one
        ops.sendRaw(creations(1, "OPS.", 0, 30));
        assertEquals(30, answered(ops, 30, refused));

        // deleted by an administrator: one place back
        String deleted = server.queueManager().queueNames().stream().filter(n -> n.startsWith("APP2.FLOOD."))
                .findFirst().orElseThrow();
        server.queueManager().deleteQueue(deleted, true);
        b.sendRaw(creations(2, "APP2.MORE.", 0, 3));
        assertEquals(1, answered(b, 3, refused));

        // deleted once unused for the auto-delete delay (a queue with producers only is unused): every place back
        a.send(new Frame.Close(5000));
        assertInstanceOf(Frame.Ok.class, a.nextFrame());
        clock.advance(DELAY);
        server.queueManager().deleteUnusedQueues();
        assertEquals(0, floodQueues());
        b.sendRaw(creations(3, "APP2.AFTER.", 0, 25));
        assertEquals(20, answered(b, 25, refused));

        // the file raised app2's quota: read again, it holds for the next creation
        Files.writeString(file, securityFile("  \"user:app2\": {createdQueues: 23}\n"));
        realm.reload();
        b.sendRaw(creations(4, "APP2.RAISED.", 0, 5));
        List<Frame.Error> overRaised = new ArrayList<>();
        assertEquals(3, answered(b, 5, overRaised));
        assertTrue(overRaised.get(0).message().contains("user 'app2' is at its quota of 23 queues created by use"
                + " (quotas.\"user:app2\".createdQueues in the security file)"), overRaised.get(0).message());
    }

    /** Ten temporary queues over three connections of one user, then refused; another user still creates its own. */
    @Test
    void aTemporaryQueueFloodOverSeveralConnectionsStopsAtTheUsersQuota() throws Exception {
        List<Connection> app2 = new ArrayList<>();
        int created = 0;
        List<Integer> perConnection = new ArrayList<>();
        JMSException refusal = null; // the last
        for (int c = 0; c < 3; c++) {
            Connection connection = open("app2");
            app2.add(connection);
            Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            int here = 0;
            for (int i = 0; i < 8; i++) {
                try {
                    s.createTemporaryQueue();
                    here++;
                } catch (JMSException e) {
                    assertEquals("TOO_MANY_QUEUES", e.getErrorCode(), e.getMessage());
                    refusal = e;
                }
            }
            perConnection.add(here);
            created += here;
        }
        assertEquals(10, created);
        assertEquals(List.of(8, 2, 0), perConnection);
        String message = refusal.getMessage();
        assertTrue(message.startsWith("Temporary queue '"), message);
        assertTrue(message.endsWith(" cannot be created: user 'app2' is at its quota of 10 temporary queues"
                + " (quotas.default.temporaryQueues in the security file). Delete the ones it no longer needs"
                + " (TemporaryQueue.delete()) or close connections that hold some, or raise its quota there."), message);

        try (Connection app1 = factory.createConnection("app1", "app1-pw")) {
            Session s = app1.createSession(false, Session.AUTO_ACKNOWLEDGE);
            for (int i = 0; i < 5; i++) {
                s.createTemporaryQueue();
            }
            s.createProducer(s.createQueue("APP1.REPLIES")).close();
        }

        app2.get(0).close(); // its 8 are deleted with it, and given back
        Session s = app2.get(2).createSession(false, Session.AUTO_ACKNOWLEDGE);
        for (int i = 0; i < 8; i++) {
            s.createTemporaryQueue();
        }
        assertEquals("TOO_MANY_QUEUES", assertThrows(JMSException.class, s::createTemporaryQueue).getErrorCode());
    }

    /** A user's connections past its quota are refused at login; another user's are not; a closed one gives its place back. */
    @Test
    void connectionsPastTheUsersQuotaAreRefused() throws Exception {
        List<Connection> app2 = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            app2.add(open("app2"));
        }
        JMSException refused = assertThrows(ResourceAllocationException.class,
                () -> factory.createConnection("app2", "app2-pw").close());
        assertEquals("User 'app2' is at its quota of 4 connections (quotas.default.connections in the security file)."
                + " Close connections it no longer needs, or raise its quota there.", refused.getMessage());
        assertEquals("TOO_MANY_CONNECTIONS", refused.getErrorCode());
        open("app1").close();
        for (int i = 0; i < 5; i++) {
            open("ops"); // an admin: unlimited unless the file sets it
        }
        app2.get(0).close();
        open("app2");
    }

    /** A client id kept for app1 is refused to app2, even before app1 first uses it, and given to app1. */
    @Test
    void aClientIdReservedForAUserIsRefusedToAnother() throws Exception {
        Connection app2 = open("app2");
        InvalidClientIDException refused = assertThrows(InvalidClientIDException.class,
                () -> app2.setClientID("app1-orders"));
        assertEquals("Client ID 'app1-orders' is reserved for user:app1 (clientIds: \"app1-*\" in the security file);"
                + " user 'app2' may not set it. Choose another client ID, or ask an administrator to reserve one for"
                + " it.", refused.getMessage());
        Connection app1 = open("app1");
        app1.setClientID("app1-orders");
        app1.createSession(false, Session.AUTO_ACKNOWLEDGE); // the client id is set with the first use
        open("app2").setClientID("app2-anything");
    }

    /**
     * The REJECT flood: app2 rejects its own 20 deliveries; 5 (its quota a minute) go to the dead-letter
     * queue, the other 15 stay on their queue, and the audit log says so once, not per message. app1's REJECT still
     * goes to the dead-letter queue.
     */
    @Test
    void aRejectFloodFillsTheDeadLetterQueueOnlyUpToTheUsersQuota() throws Exception {
        send("app2", "APP2.IN", 20);
        send("app1", "APP1.IN", 1);
        try (LogCapture audit = LogCapture.of(AuditLog.NAME);
             LogCapture deadLetters = LogCapture.of(DeadLetters.class.getName())) {
            RawFrameClient app2 = raw("app2");
            List<Frame.Deliver> deliveries = consume(app2, "APP2.IN", 20);
            ByteArrayOutputStream rejects = new ByteArrayOutputStream();
            for (Frame.Deliver d : deliveries) {
                rejects.writeBytes(RawFrameClient.encode(new Frame.Reject(1, d.deliveryId(), "flood")));
                d.message().release();
            }
            rejects.writeBytes(RawFrameClient.encode(new Frame.CreateSession(9, 2, false, 1))); // a barrier
            app2.sendRaw(rejects.toByteArray());
            okAfterDeliveries(app2);
            QueueManager queues = server.queueManager();
            assertEquals(5, queues.depth(DeadLetters.QUEUE));
            assertEquals(20 - 5, queues.depth("APP2.IN"), "the rest are back on their queue: none lost");
            assertEquals(5, deadLetters.messages().size(), String.valueOf(deadLetters.messages()));
            List<String> burst = audit.messages().stream().filter(m -> m.contains("REJECT")).toList();
            assertEquals(List.of("REFUSED user 'app2' from " + peerOf(app2) + ": REJECT to the dead-letter queue: user"
                    + " 'app2' is at its quota of 5 deliveries rejected to the dead-letter queue per minute"
                    + " (quotas.default.rejectsPerMinute in the security file). The deliveries it rejects go back to"
                    + " their queues (redelivered, with their delivery count raised) until the minute is over; how"
                    + " many is logged then."), burst);

            RawFrameClient app1 = raw("app1");
            Frame.Deliver d = consume(app1, "APP1.IN", 1).get(0);
            d.message().release();
            app1.send(new Frame.Reject(1, d.deliveryId(), "cannot decode"));
            app1.send(new Frame.CreateSession(9, 2, false, 1));
            okAfterDeliveries(app1);
            assertEquals(6, queues.depth(DeadLetters.QUEUE));
        }
    }

    // ---- helpers ----

    private Connection open(String user) throws JMSException {
        Connection connection = factory.createConnection(user, user + "-pw");
        opened.add(connection);
        return connection;
    }

    private RawFrameClient raw(String user) throws IOException {
        RawFrameClient client = RawFrameClient.connect(server.tcpPort());
        opened.add(client);
        client.handshake(user, user + "-pw");
        return client;
    }

    private static String peerOf(RawFrameClient client) {
        return client.localAddress().toString();
    }

    /**
     * One burst of frames: CREATE_SESSION {@code session}, then {@code count} CREATE_PRODUCERs in it on new queues
     * {@code prefix + first}, {@code prefix + (first + 1)}, ... (request and producer ids unique per session).
     */
    private static byte[] creations(int session, String prefix, int first, int count) {
        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        burst.writeBytes(RawFrameClient.encode(new Frame.CreateSession(session * 1000, session, false, 1)));
        for (int i = 0; i < count; i++) {
            burst.writeBytes(RawFrameClient.encode(new Frame.CreateProducer(session * 1000 + 1 + i, session,
                    session * 1000 + i, WireDestination.queue(prefix + (first + i)))));
        }
        return burst.toByteArray();
    }

    /** Reads the session's OK and {@code count} answers: how many were OK; the ERRORs go to {@code refused}. */
    private static int answered(RawFrameClient client, int count, List<Frame.Error> refused) throws IOException {
        assertInstanceOf(Frame.Ok.class, client.nextFrame(), "the session");
        int ok = 0;
        for (int i = 0; i < count; i++) {
            Frame answer = client.nextFrame();
            if (answer instanceof Frame.Ok) {
                ok++;
            } else {
                refused.add(assertInstanceOf(Frame.Error.class, answer));
            }
        }
        return ok;
    }

    private long floodQueues() {
        return server.queueManager().queueNames().stream().filter(n -> n.startsWith("APP2.FLOOD.")).count();
    }

    private void send(String user, String queue, int count) throws JMSException {
        try (Connection connection = factory.createConnection(user, user + "-pw")) {
            Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = s.createProducer(s.createQueue(queue));
            for (int i = 0; i < count; i++) {
                producer.send(s.createTextMessage("m" + i));
            }
        }
    }

    /** Waits for the barrier's OK; deliveries before it (a REJECT's credit given back) are let go. */
    private static void okAfterDeliveries(RawFrameClient client) throws IOException {
        Frame f;
        while ((f = client.nextFrame()) instanceof Frame.Deliver d) {
            d.message().release();
        }
        assertInstanceOf(Frame.Ok.class, f);
    }

    /** Session 1 and consumer 1 on {@code queue} with credit for {@code count}; its first {@code count} deliveries. */
    private static List<Frame.Deliver> consume(RawFrameClient client, String queue, int count) throws IOException {
        client.send(new Frame.CreateSession(1, 1, false, 1));
        assertInstanceOf(Frame.Ok.class, client.nextFrame());
        client.send(new Frame.CreateConsumer(2, 1, 1, WireDestination.queue(queue), null, count, 0, null));
        List<Frame.Deliver> deliveries = new ArrayList<>();
        while (deliveries.size() < count) {
            Frame f = client.nextFrame();
            if (f instanceof Frame.Deliver d) {
                deliveries.add(d);
            } else {
                assertInstanceOf(Frame.Ok.class, f, "the consumer");
            }
        }
        return deliveries;
    }
}
