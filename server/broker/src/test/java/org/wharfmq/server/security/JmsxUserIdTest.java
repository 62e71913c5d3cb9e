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

    /**
     * A message whose JMSXUserID is {@code first} and then again {@code second}: encoded with a second property of a
     * name as long ("JMSXUserIE"), renamed in place, since a map holds each name once.
     */
    private static io.netty.buffer.ByteBuf twice(String queue, String first, String second) {
        WireMessage m = TestMessages.text(queue, "balance=0, account closed");
        m.properties.put("JMSXUserID", first);
        m.properties.put("JMSXUserIE", second);
        io.netty.buffer.ByteBuf encoded = TestMessages.encode(m);
        int at = io.netty.buffer.ByteBufUtil.indexOf(io.netty.buffer.Unpooled.copiedBuffer("JMSXUserIE",
                java.nio.charset.StandardCharsets.UTF_8), encoded);
        encoded.setByte(at + "JMSXUserI".length(), 'D');
        return encoded;
    }

    /**
     * A property section that names JMSXUserID twice is refused in either order, however the values fall: the
     * receiver's decoder keeps the last, so a check of the first alone would let a client send as another user.
     */
    @Test
    void aMessageThatNamesItsUserTwiceIsRefusedInEitherOrder() throws Exception {
        try (FrameClient client = FrameClient.tcp(testServer.server())) {
            client.login("alice", TestUsers.password("alice"));
            client.createSession(1, false);
            for (String[] values : new String[][]{{"alice", "root"}, {"root", "alice"}, {"alice", "alice"}}) {
                Frame.Error twice = client.requestFails(id -> new Frame.Send(id, 1, 1,
                        twice("JMSX.TWICE", values[0], values[1])), ErrorCode.NOT_AUTHORISED);
                assertTrue(twice.message().contains("carries the JMSXUserID property more than once"), twice.message());
            }
            client.sendMessage(1, claiming("JMSX.TWICE", "alice"));
            assertEquals(1, testServer.server().queueManager().queue("JMSX.TWICE").depth(),
                    "only the message that names its own user once was stored");
        }
        try (FrameClient anonymous = FrameClient.tcp(testServer.server())) {
            anonymous.hello();
            anonymous.createSession(1, false);
            anonymous.requestFails(id -> new Frame.Send(id, 1, 1, twice("JMSX.TWICE", "alice", "alice")),
                    ErrorCode.NOT_AUTHORISED);
        }
    }

    /**
     * The queue manager's own in-process connection (a channel receiver putting what the partner's authenticated
     * clients sent) keeps the JMSXUserID a message carries; named twice it is still refused.
     */
    @Test
    void theQueueManagersOwnConnectionKeepsTheUserAMessageCarries() throws Exception {
        try (FrameClient queueManager = FrameClient.inVm(testServer.server())) {
            queueManager.hello();
            queueManager.createSession(1, false);
            queueManager.sendMessage(1, claiming("JMSX.CHANNEL", "alice"));
            queueManager.sendMessage(1, claiming("JMSX.CHANNEL", null));
            assertEquals(2, testServer.server().queueManager().queue("JMSX.CHANNEL").depth());
            queueManager.requestFails(id -> new Frame.Send(id, 1, 1, twice("JMSX.CHANNEL", "alice", "root")),
                    ErrorCode.NOT_AUTHORISED);
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
