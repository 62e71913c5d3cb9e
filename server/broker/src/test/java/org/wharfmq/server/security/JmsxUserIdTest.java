package org.wharfmq.server.security;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.TestUsers;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.store.InMemoryMessageStore;

import java.time.InstantSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * JMSXUserID is the authenticated user, never a claim: a raw-frame client that forges one is refused with
 * NOT_AUTHORISED naming both names, and the message is not stored.
 */
class JmsxUserIdTest {

    private static TestServer testServer;

    @BeforeAll
    static void start() throws Exception {
        testServer = TestServer.start(c -> c, config -> WharfServer.builder(config)
                .store(new InMemoryMessageStore()).authenticator(TestUsers.of("alice")).start());
    }

    @AfterAll
    static void stop() {
        testServer.close();
    }

    private static WireMessage claiming(String queue, String user) {
        WireMessage m = TestMessages.text(queue, "hello");
        if (user != null) {
            m.properties.put("JMSXUserID", user);
        }
        m.properties.put("app", 7);
        return m;
    }

    @Test
    void anAuthenticatedClientMustSendAsItself() throws Exception {
        try (FrameClient client = FrameClient.tcp(testServer.server())) {
            assertEquals("alice", client.login("alice", TestUsers.password("alice")).user());
            client.createSession(1, false);
            Frame.Error forged = client.requestFails(id -> new Frame.Send(id, 1, 1,
                    TestMessages.encode(claiming("JMSX.USER", "root"))), ErrorCode.NOT_AUTHORISED);
            assertTrue(forged.message().contains("claims JMSXUserID 'root'") && forged.message().contains("user 'alice'"),
                    forged.message());
            Frame.Error missing = client.requestFails(id -> new Frame.Send(id, 1, 1,
                    TestMessages.encode(claiming("JMSX.USER", null))), ErrorCode.NOT_AUTHORISED);
            assertTrue(missing.message().contains("carries no JMSXUserID"), missing.message());
            client.sendMessage(1, claiming("JMSX.USER", "alice"));
            assertEquals(1, testServer.server().queueManager().queue("JMSX.USER").depth(),
                    "only the message that names its own user was stored");
        }
    }

    @Test
    void anAnonymousClientSendsNoUser() throws Exception {
        try (FrameClient client = FrameClient.tcp(testServer.server())) {
            assertEquals("", client.hello().user());
            client.createSession(1, false);
            Frame.Error forged = client.requestFails(id -> new Frame.Send(id, 1, 1,
                    TestMessages.encode(claiming("JMSX.ANON", "alice"))), ErrorCode.NOT_AUTHORISED);
            assertTrue(forged.message().contains("did not authenticate"), forged.message());
            client.sendMessage(1, claiming("JMSX.ANON", null));
        }
    }
}
