package org.wharfmq.server.session;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.WireXid;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.TestUsers;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.AuditLog;
import org.wharfmq.server.security.Permission;
import org.wharfmq.server.security.PermissionRules;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An XA branch belongs to the user that started it: another user cannot see it in XA_RECOVER, join, end, prepare,
 * commit or roll it back, whatever its state (active, ended, prepared, restored after a restart); its owner still
 * completes it; an admin may complete or list it for recovery; every completion and refusal is an audit line.
 */
class XaOwnershipTest {

    private static final String QUEUE = "APP1.XA";

    private TestServer testServer;
    private int number;

    @BeforeEach
    void start() throws Exception {
        AccessControl control = new AccessControl(PermissionRules.builder().connect("anyone")
                .queue("APP1.**", Permission.SEND, "user:app1")
                .queue("APP1.**", Permission.RECEIVE, "user:app1")
                .queue("APP1.**", Permission.CREATE, "user:app1")
                .queue("APP2.**", Permission.SEND, "user:app2")
                .queue("APP2.**", Permission.CREATE, "user:app2")
                .admin("user:admin")
                .build(), "security file test.yaml");
        testServer = TestServer.start(c -> c.queue(QUEUE), config -> WharfServer.builder(config)
                .authenticator(TestUsers.of("app1", "app2", "admin")).accessControl(control).start());
    }

    @AfterEach
    void stop() {
        testServer.close();
    }

    private WharfServer server() {
        return testServer.server();
    }

    private FrameClient login(String user) throws Exception {
        FrameClient client = FrameClient.tcp(server());
        client.login(user, TestUsers.password(user));
        return client;
    }

    private WireXid newXid() {
        return new WireXid(0x5748, ("owned-" + (++number)).getBytes(StandardCharsets.UTF_8), new byte[]{1});
    }

    private static WireMessage from(String user, String body) {
        WireMessage m = TestMessages.text(QUEUE, body);
        m.persistent = true; // journaled with the branch's PREPARE record, so it is restored after a restart
        m.properties.put("JMSXUserID", user);
        return m;
    }


    /** app1's XA session 1 starts {@code xid} and sends one message in it; still associated. */
    private static void startAndSend(FrameClient app1, WireXid xid) throws InterruptedException {
        app1.request(id -> new Frame.CreateSession(id, 1, false, Frame.SESSION_XA));
        app1.request(id -> new Frame.XaStart(id, 1, xid, Frame.XA_NOFLAGS, 0));
        app1.sendMessage(1, from("app1", "app1's work"));
    }

    private static void end(FrameClient app1, WireXid xid) throws InterruptedException {
        app1.request(id -> new Frame.XaEnd(id, 1, xid, Frame.XA_SUCCESS, List.of()));
    }

    private static void prepare(FrameClient client, WireXid xid) throws InterruptedException {
        assertEquals(Frame.XA_OK, client.xaResult(id -> new Frame.XaPrepare(id, xid)).result());
    }

    /** app1 starts {@code xid}, sends one message in it, ends and prepares it. */
    private static void preparedBy(FrameClient app1, WireXid xid) throws InterruptedException {
        startAndSend(app1, xid);
        end(app1, xid);
        prepare(app1, xid);
    }

    /** The refusal names the Xid, says whose it is not, and who may complete it. */
    private static void refused(FrameClient client, IntFunction<Frame> request, WireXid xid, String what)
            throws InterruptedException {
        Frame.Error error = client.requestFails(request, ErrorCode.NOT_AUTHORISED);
        assertTrue(error.message().startsWith("User 'app2' may not " + what + " " + xid + ": that XA branch belongs to "
                + "another user"), error.message());
        assertTrue(!error.message().contains("app1"), "the owner is not named to another user: " + error.message());
    }

    private long depth() {
        return server().queueManager().queue(QUEUE).depth();
    }

    @Test
    void anotherUserCannotSeeCommitOrRollBackAPreparedBranchAndTheOwnerStillCommits() throws Exception {
        WireXid xid = newXid();
        try (LogCapture audit = LogCapture.of(AuditLog.NAME);
             FrameClient app1 = login("app1"); FrameClient app2 = login("app2")) {
            preparedBy(app1, xid);

            assertEquals(List.of(), app2.xaResult(Frame.XaRecover::new).xids(), "app2 does not see app1's branch");
            refused(app2, id -> new Frame.XaRollback(id, xid), xid, "roll back");
            refused(app2, id -> new Frame.XaCommit(id, xid, false), xid, "commit");
            assertEquals(List.of(xid), app1.xaResult(Frame.XaRecover::new).xids(), "still prepared");

            app1.request(id -> new Frame.XaCommit(id, xid, false));
            assertEquals(1, depth(), "app1's commit made its send visible");
            List<String> lines = audit.lines();
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("WARNING DENIED user 'app2'")
                    && l.contains("XA roll back of " + xid + ", a branch of user 'app1'")), lines.toString());
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("INFO XA user 'app1'")
                    && l.endsWith(xid + " committed")), lines.toString());
        }
    }

    @Test
    void anotherUserCannotJoinOrFailAnActiveBranch() throws Exception {
        WireXid xid = newXid();
        try (FrameClient app1 = login("app1"); FrameClient app2 = login("app2")) {
            startAndSend(app1, xid);
            app2.request(id -> new Frame.CreateSession(id, 1, false, Frame.SESSION_XA));
            refused(app2, id -> new Frame.XaStart(id, 1, xid, Frame.XA_JOIN, 0), xid, "join");
            refused(app2, id -> new Frame.XaStart(id, 1, xid, Frame.XA_NOFLAGS, 0), xid, "start");
            app2.requestFails(id -> new Frame.XaEnd(id, 1, xid, Frame.XA_FAIL, List.of()), ErrorCode.XAER_PROTO);
            refused(app2, id -> new Frame.XaRollback(id, xid), xid, "roll back");

            end(app1, xid); // not made rollback-only by app2
            app1.request(id -> new Frame.XaCommit(id, xid, true));
            assertEquals(1, depth());
        }
    }

    @Test
    void anotherUserCannotJoinPrepareOrCommitAnEndedBranch() throws Exception {
        WireXid xid = newXid();
        try (FrameClient app1 = login("app1"); FrameClient app2 = login("app2")) {
            startAndSend(app1, xid);
            end(app1, xid);
            app2.request(id -> new Frame.CreateSession(id, 1, false, Frame.SESSION_XA));
            refused(app2, id -> new Frame.XaStart(id, 1, xid, Frame.XA_JOIN, 0), xid, "join");
            refused(app2, id -> new Frame.XaPrepare(id, xid), xid, "prepare");
            refused(app2, id -> new Frame.XaCommit(id, xid, true), xid, "commit");
            refused(app2, id -> new Frame.XaRollback(id, xid), xid, "roll back");

            prepare(app1, xid);
            app1.request(id -> new Frame.XaCommit(id, xid, false));
            assertEquals(1, depth());
        }
    }

    @Test
    void anAdminListsAndRollsBackAnotherUsersPreparedBranchForRecoveryAudited() throws Exception {
        WireXid xid = newXid();
        try (LogCapture audit = LogCapture.of(AuditLog.NAME);
             FrameClient app1 = login("app1"); FrameClient admin = login("admin")) {
            preparedBy(app1, xid);
            assertEquals(1, depth(), "the prepared send holds its place");

            assertEquals(List.of(xid), admin.xaResult(Frame.XaRecover::new).xids());
            admin.request(id -> new Frame.XaRollback(id, xid));
            assertEquals(0, depth(), "the admin's rollback dropped the send");
            assertEquals(List.of(), app1.xaResult(Frame.XaRecover::new).xids());
            List<String> lines = audit.lines();
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("INFO XA user 'admin'")
                    && l.contains("recover listed 1 prepared branch(es) of other users")
                    && l.contains(xid + " of user 'app1'")), lines.toString());
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("INFO XA user 'admin'")
                    && l.contains(xid + " rolled back (a branch of user 'app1': recovery by an admin)")),
                    lines.toString());
        }
    }

    @Test
    void aBranchRestoredAfterARestartKeepsItsOwner() throws Exception {
        WireXid xid = newXid();
        try (FrameClient app1 = login("app1")) {
            preparedBy(app1, xid);
        }
        testServer.restart();
        try (FrameClient app1 = login("app1"); FrameClient app2 = login("app2")) {
            assertEquals(List.of(), app2.xaResult(Frame.XaRecover::new).xids(), "app2 does not see app1's branch");
            refused(app2, id -> new Frame.XaCommit(id, xid, false), xid, "commit");
            refused(app2, id -> new Frame.XaRollback(id, xid), xid, "roll back");
            assertEquals(List.of(xid), app1.xaResult(Frame.XaRecover::new).xids());
            app1.request(id -> new Frame.XaCommit(id, xid, false));
            assertEquals(1, depth(), "app1's commit after the restart made its send visible");
        }
    }
}
