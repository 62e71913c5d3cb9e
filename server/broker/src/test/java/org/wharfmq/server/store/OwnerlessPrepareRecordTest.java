package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.WireXid;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.TestUsers;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Permission;
import org.wharfmq.server.security.PermissionRules;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A PREPARE record written before XA branches had owners names the Xid alone: the server still reads it, and the
 * branch it restores is no user's, so only an admin lists and completes it.
 */
class OwnerlessPrepareRecordTest {

    private static final String QUEUE = "APP1.XA";

    @Test
    void aBranchJournaledWithoutAnOwnerIsAnAdminsToComplete() throws Exception {
        AccessControl control = new AccessControl(PermissionRules.builder().connect("anyone")
                .queue("APP1.**", Permission.SEND, "user:app1")
                .queue("APP1.**", Permission.RECEIVE, "user:app1")
                .admin("user:admin")
                .build(), "security file test.yaml");
        WireXid xid = new WireXid(0x5748, "before-owners".getBytes(StandardCharsets.UTF_8), new byte[]{1});
        try (TestServer testServer = TestServer.start(c -> c.queue(QUEUE), config -> WharfServer.builder(config)
                .authenticator(TestUsers.of("app1", "admin")).accessControl(control).start())) {
            testServer.stop();
            try (JournalMessageStore store = StoreHarness.open(testServer.config(), new StoreHarness.Recovered())) {
                WireMessage m = TestMessages.text(QUEUE, "prepared before owners");
                m.properties.put("JMSXUserID", "app1");
                store.putInTransaction(1, new StoreHarness.Message(QUEUE, 1, TestMessages.encode(m)));
                ByteBuf key = Unpooled.buffer();
                xid.write(key); // the old record's branch: the Xid, and nothing after it
                StoreHarness.Done prepared = new StoreHarness.Done();
                store.prepare(1, ByteBufUtil.getBytes(key), prepared);
                assertNull(prepared.await());
            }
            WharfServer server = testServer.restart();
            try (FrameClient app1 = login(server, "app1"); FrameClient admin = login(server, "admin")) {
                assertEquals(List.of(), app1.xaResult(Frame.XaRecover::new).xids(), "no user's branch is not app1's");
                Frame.Error refused = app1.requestFails(id -> new Frame.XaCommit(id, xid, false),
                        ErrorCode.NOT_AUTHORISED);
                assertTrue(refused.message().contains(xid + ": that XA branch belongs to another user"),
                        refused.message());
                assertEquals(List.of(xid), admin.xaResult(Frame.XaRecover::new).xids());
                admin.request(id -> new Frame.XaCommit(id, xid, false));
                assertEquals(1, server.queueManager().queue(QUEUE).depth(), "the admin's commit made the send visible");
                assertEquals(List.of(), admin.xaResult(Frame.XaRecover::new).xids());
            }
        }
    }

    private static FrameClient login(WharfServer server, String user) throws Exception {
        FrameClient client = FrameClient.tcp(server);
        client.login(user, TestUsers.password(user));
        return client;
    }
}
