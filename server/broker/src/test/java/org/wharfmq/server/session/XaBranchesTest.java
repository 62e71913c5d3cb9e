package org.wharfmq.server.session;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.WireXid;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * XA transaction branches frame by frame against a real server: the work of a branch is invisible until its commit,
 * whichever connection prepares, commits or recovers it; every refusal carries the XA code XA says.
 */
class XaBranchesTest {

    private static TestServer testServer;
    private static WharfServer server;
    private static int number;

    @BeforeAll
    static void start() throws Exception {
        testServer = TestServer.start(c -> c.queue("XA.TINY", 1));
        server = testServer.server();
    }

    @AfterAll
    static void stop() {
        testServer.close();
    }

    private static String newQueue() {
        return "XA." + (++number);
    }

    private static WireXid newXid() {
        return new WireXid(0x5748, ("gtrid-" + (++number)).getBytes(StandardCharsets.UTF_8), new byte[]{1});
    }

    /** An XA session (not transacted, {@link Frame#SESSION_XA}) with a consumer of {@code queue} when one is named. */
    private static void xaSession(FrameClient client, int sessionId) throws InterruptedException {
        client.request(id -> new Frame.CreateSession(id, sessionId, false, Frame.SESSION_XA));
    }

    /**
     * A branch sends one message and consumes another: prepared, its send stays invisible and its consumed message
     * is not delivered to anyone; recovered and committed from another connection, the send appears and the
     * consumed message is gone.
     */
    @Test
    void aPreparedBranchIsInvisibleUntilAnotherConnectionCommitsIt() throws Exception {
        String in = newQueue();
        String out = newQueue();
        WireXid xid = newXid();
        try (FrameClient app = FrameClient.connect(server); FrameClient tm = FrameClient.connect(server)) {
            app.createSession(9, false);
            app.sendMessage(9, TestMessages.text(in, "request"));
            xaSession(app, 1);
            app.request(id -> new Frame.XaStart(id, 1, xid, Frame.XA_NOFLAGS, 0));
            app.createConsumer(1, 1, in, null, 1);
            Frame.Deliver request = app.expect(Frame.Deliver.class);
            app.sendMessageAsync(1, TestMessages.text(out, "reply"));
            app.request(id -> new Frame.XaEnd(id, 1, xid, Frame.XA_SUCCESS, List.of(new Frame.Consumed(1, request.deliveryId()))));
            assertEquals(Frame.XA_OK, tm.xaResult(id -> new Frame.XaPrepare(id, xid)).result());

            app.send(new Frame.CloseConsumer(0, 1, 1, request.deliveryId()));
            tm.createSession(1, false);
            tm.createConsumer(1, 1, in, null, 10);
            tm.createConsumer(1, 2, out, null, 10);
            tm.expectNothingMore(1);
            tm.expectNothingMore(2);
            assertEquals(1, server.queueManager().depth(in), "the consumed message is held by the branch");
            assertEquals(1, server.queueManager().depth(out), "the send holds its place");
            assertEquals(List.of(xid), tm.xaResult(Frame.XaRecover::new).xids());

            int commit = tm.requestId();
            tm.send(new Frame.XaCommit(commit, xid, false));
            Frame.Deliver reply = tm.expect(Frame.Deliver.class); // offered once the commit is durable, then answered
            assertEquals("reply", TestMessages.body(reply.message()));
            assertEquals(new Frame.Ok(commit), tm.next());
            assertEquals(0, server.queueManager().depth(in), "the consumed message is gone");
            assertEquals(List.of(), tm.xaResult(Frame.XaRecover::new).xids());
        }
    }

    /** A rolled-back branch drops its sends and gives back what it consumed, counted as redelivered. */
    @Test
    void aRolledBackBranchReturnsWhatItConsumedRedelivered() throws Exception {
        String in = newQueue();
        WireXid xid = newXid();
        try (FrameClient app = FrameClient.connect(server)) {
            app.createSession(9, false);
            app.sendMessage(9, TestMessages.text(in, "m1"));
            xaSession(app, 1);
            app.request(id -> new Frame.XaStart(id, 1, xid, Frame.XA_NOFLAGS, 0));
            app.createConsumer(1, 1, in, null, 1);
            Frame.Deliver first = app.expect(Frame.Deliver.class);
            app.sendMessageAsync(1, TestMessages.text(in, "dropped"));
            app.request(id -> new Frame.XaEnd(id, 1, xid, Frame.XA_SUCCESS, List.of(new Frame.Consumed(1, first.deliveryId()))));
            assertEquals(Frame.XA_OK, app.xaResult(id -> new Frame.XaPrepare(id, xid)).result());
            app.request(id -> new Frame.XaRollback(id, xid));
            app.send(new Frame.Credit(1, 1));
            Frame.Deliver again = app.expect(Frame.Deliver.class);
            assertEquals("m1", TestMessages.body(again.message()));
            assertEquals(2, again.deliveryCount());
            app.request(id -> new Frame.Ack(id, 1, List.of(new Frame.Consumed(1, again.deliveryId()))));
            assertEquals(0, server.queueManager().depth(in), "the branch's send was dropped");
        }
    }

    /** Outside a branch an XA session acknowledges as AUTO_ACKNOWLEDGE does; a branch that did nothing is read-only. */
    @Test
    void aBranchThatDidNothingPreparesReadOnlyAndIsForgotten() throws Exception {
        String in = newQueue();
        WireXid xid = newXid();
        try (FrameClient app = FrameClient.connect(server)) {
            xaSession(app, 1);
            app.sendMessage(1, TestMessages.text(in, "outside"));
            app.createConsumer(1, 1, in, null, 1);
            Frame.Deliver outside = app.expect(Frame.Deliver.class);
            app.request(id -> new Frame.Ack(id, 1, List.of(new Frame.Consumed(1, outside.deliveryId()))));
            assertEquals(0, server.queueManager().depth(in));
            app.request(id -> new Frame.XaStart(id, 1, xid, Frame.XA_NOFLAGS, 0));
            app.request(id -> new Frame.XaEnd(id, 1, xid, Frame.XA_SUCCESS, List.of()));
            assertEquals(Frame.XA_RDONLY, app.xaResult(id -> new Frame.XaPrepare(id, xid)).result());
            app.requestFails(id -> new Frame.XaCommit(id, xid, false), ErrorCode.XAER_NOTA);
        }
    }

    @Test
    void refusalsCarryTheXaCodeAndNameTheXid() throws Exception {
        WireXid xid = newXid();
        try (FrameClient app = FrameClient.connect(server); FrameClient other = FrameClient.connect(server)) {
            Frame.Error unknown = app.requestFails(id -> new Frame.XaPrepare(id, xid), ErrorCode.XAER_NOTA);
            assertTrue(unknown.message().contains(xid.toString()) && unknown.message().contains("knows no such branch"),
                    unknown.message());
            app.createSession(2, true);
            app.requestFails(id -> new Frame.XaStart(id, 2, xid, Frame.XA_NOFLAGS, 0), ErrorCode.XAER_PROTO);

            xaSession(app, 1);
            xaSession(other, 1);
            app.request(id -> new Frame.XaStart(id, 1, xid, Frame.XA_NOFLAGS, 0));
            other.requestFails(id -> new Frame.XaStart(id, 1, xid, Frame.XA_NOFLAGS, 0), ErrorCode.XAER_DUPID);
            other.requestFails(id -> new Frame.XaStart(id, 1, xid, 0x1234, 0), ErrorCode.XAER_INVAL);
            Frame.Error active = other.requestFails(id -> new Frame.XaCommit(id, xid, true), ErrorCode.XAER_PROTO);
            assertTrue(active.message().contains("while sessions are associated with it"), active.message());
            app.requestFails(id -> new Frame.Rollback(id, 1, List.of()), ErrorCode.ILLEGAL_STATE);
            app.request(id -> new Frame.XaEnd(id, 1, xid, Frame.XA_SUCCESS, List.of()));
            app.requestFails(id -> new Frame.XaEnd(id, 1, xid, Frame.XA_SUCCESS, List.of()), ErrorCode.XAER_PROTO);
            other.requestFails(id -> new Frame.XaCommit(id, xid, false), ErrorCode.XAER_PROTO);
            other.request(id -> new Frame.XaCommit(id, xid, true));
            other.requestFails(id -> new Frame.XaRollback(id, xid), ErrorCode.XAER_NOTA);
        }
    }

    /** TMFAIL, or a failed send in the branch, leaves a branch that can only roll back: commit says XA_RBROLLBACK. */
    @Test
    void aBranchEndedWithTmfailOrAFailedSendRollsBackAtCommit() throws Exception {
        WireXid failed = newXid();
        WireXid full = newXid();
        try (FrameClient app = FrameClient.connect(server)) {
            xaSession(app, 1);
            app.request(id -> new Frame.XaStart(id, 1, failed, Frame.XA_NOFLAGS, 0));
            app.sendMessageAsync(1, TestMessages.text("XA.TINY", "dropped"));
            app.requestFails(id -> new Frame.XaEnd(id, 1, failed, Frame.XA_FAIL, List.of()), ErrorCode.XA_RBROLLBACK);
            Frame.Error rolledBack = app.requestFails(id -> new Frame.XaCommit(id, failed, true), ErrorCode.XA_RBROLLBACK);
            assertTrue(rolledBack.message().contains("TMFAIL"), rolledBack.message());
            assertEquals(0, server.queueManager().depth("XA.TINY"));

            app.sendMessage(1, TestMessages.text("XA.TINY", "fills it")); // outside a branch
            app.request(id -> new Frame.XaStart(id, 1, full, Frame.XA_NOFLAGS, 0));
            app.send(new Frame.Send(0, 1, 3, TestMessages.encode(TestMessages.text("XA.TINY", "too many"))));
            assertEquals(ErrorCode.QUEUE_FULL, app.expect(Frame.Error.class).code());
            app.requestFails(id -> new Frame.XaEnd(id, 1, full, Frame.XA_SUCCESS, List.of()), ErrorCode.XA_RBROLLBACK);
            Frame.Error prepare = app.requestFails(id -> new Frame.XaPrepare(id, full), ErrorCode.XA_RBROLLBACK);
            assertTrue(prepare.message().contains("Queue 'XA.TINY' is full"), prepare.message());
            app.requestFails(id -> new Frame.XaRollback(id, full), ErrorCode.XAER_NOTA);
        }
    }

    /** A branch joined from another connection, and one suspended and resumed, commits the work of all of them. */
    @Test
    void joinedAndResumedAssociationsShareOneBranch() throws Exception {
        String out = newQueue();
        WireXid xid = newXid();
        try (FrameClient first = FrameClient.connect(server); FrameClient second = FrameClient.connect(server)) {
            xaSession(first, 1);
            xaSession(second, 1);
            first.request(id -> new Frame.XaStart(id, 1, xid, Frame.XA_NOFLAGS, 0));
            second.request(id -> new Frame.XaStart(id, 1, xid, Frame.XA_JOIN, 0));
            first.sendMessageAsync(1, TestMessages.text(out, "one"));
            second.sendMessageAsync(1, TestMessages.text(out, "two"));
            first.request(id -> new Frame.XaEnd(id, 1, xid, Frame.XA_SUSPEND, List.of()));
            second.request(id -> new Frame.XaEnd(id, 1, xid, Frame.XA_SUCCESS, List.of()));
            second.requestFails(id -> new Frame.XaPrepare(id, xid), ErrorCode.XAER_PROTO); // suspended
            first.request(id -> new Frame.XaStart(id, 1, xid, Frame.XA_RESUME, 0));
            first.sendMessageAsync(1, TestMessages.text(out, "three"));
            first.request(id -> new Frame.XaEnd(id, 1, xid, Frame.XA_SUCCESS, List.of()));
            assertEquals(Frame.XA_OK, second.xaResult(id -> new Frame.XaPrepare(id, xid)).result());
            second.request(id -> new Frame.XaCommit(id, xid, false));
            assertEquals(3, server.queueManager().depth(out));
        }
    }

    /** A session closed while associated leaves nothing behind: its branch rolls back, its consumed message returns. */
    @Test
    void aSessionClosedInsideABranchRollsTheBranchBack() throws Exception {
        String in = newQueue();
        WireXid xid = newXid();
        try (FrameClient app = FrameClient.connect(server)) {
            app.createSession(9, false);
            app.sendMessage(9, TestMessages.text(in, "m1"));
            xaSession(app, 1);
            app.request(id -> new Frame.XaStart(id, 1, xid, Frame.XA_NOFLAGS, 0));
            app.sendMessageAsync(1, TestMessages.text(in, "dropped"));
            app.request(id -> new Frame.CloseSession(id, 1));
            app.requestFails(id -> new Frame.XaRollback(id, xid), ErrorCode.XAER_NOTA);
            assertEquals(1, server.queueManager().depth(in));
        }
    }

    /** A branch not prepared within its transaction timeout is rolled back: what it consumed comes back. */
    @Test
    void aBranchPastItsTimeoutIsRolledBack() throws Exception {
        String in = newQueue();
        WireXid xid = newXid();
        try (FrameClient app = FrameClient.connect(server)) {
            app.createSession(9, false);
            app.sendMessage(9, TestMessages.text(in, "m1"));
            xaSession(app, 1);
            app.request(id -> new Frame.XaStart(id, 1, xid, Frame.XA_NOFLAGS, 1));
            app.createConsumer(1, 1, in, null, 1);
            Frame.Deliver first = app.expect(Frame.Deliver.class);
            app.request(id -> new Frame.XaEnd(id, 1, xid, Frame.XA_SUCCESS, List.of(new Frame.Consumed(1, first.deliveryId()))));
            app.createSession(2, false);
            app.createConsumer(2, 2, in, null, 1);
            Frame.Deliver again = app.expect(Frame.Deliver.class); // after the 1 s timeout, at the latest 10 s
            assertEquals(2, again.consumerId());
            assertEquals(2, again.deliveryCount());
            app.requestFails(id -> new Frame.XaPrepare(id, xid), ErrorCode.XAER_NOTA);
        }
    }
}
