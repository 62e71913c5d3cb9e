package org.wharfmq.server.transport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.TestUsers;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.store.InMemoryMessageStore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CLAIM_KEY on the wire (docs/protocol.md, "Connection keys and reconnection"): a connection creates temporary
 * destinations only in the namespace its key gives it, and a connection presenting the key of a live one takes over
 * from it (the client's half-open connection, left behind): the old one is released as a drop, its client ID freed, its
 * unacknowledged delivery returned marked redelivered, its temporary queue handed over with the message waiting there.
 * Only a connection of the same user may take over.
 */
@Timeout(60)
class ConnectionKeyTest {

    private static TestServer testServer;
    private static WharfServer server;

    @BeforeAll
    static void start() throws Exception {
        testServer = TestServer.start(c -> c, config -> WharfServer.builder(config).store(new InMemoryMessageStore())
                .authenticator(TestUsers.of("alice")).start());
        server = testServer.server();
    }

    @AfterAll
    static void stop() {
        testServer.close();
    }

    private static WireDestination temporaryQueue(String name) {
        return new WireDestination(WireDestination.Kind.TEMPORARY_QUEUE, name);
    }

    @Test
    void temporaryNamesLieInTheNamespaceOfTheConnectionsKey() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            Frame.Error unclaimed = client.requestFails(id -> new Frame.CreateTemporary(id, temporaryQueue("TMP.mine.1")),
                    ErrorCode.NOT_AUTHORISED);
            assertTrue(unclaimed.message().contains("it has sent no CLAIM_KEY yet"), unclaimed.message());

            String namespace = client.claimKey(FrameClient.newKey());
            client.request(id -> new Frame.CreateTemporary(id, temporaryQueue(namespace + "1")));
            assertTrue(server.queueManager().temporaryQueueNames().contains(namespace + "1"));
            Frame.Error outside = client.requestFails(id -> new Frame.CreateTemporary(id, temporaryQueue("TMP.theirs.1")),
                    ErrorCode.NOT_AUTHORISED);
            assertTrue(outside.message().contains("'" + namespace + "...'"), outside.message());
            assertTrue(outside.message().contains("a connection creates temporary destinations only in its own namespace"),
                    outside.message());

            Frame.Error twice = client.requestFails(id -> new Frame.ClaimKey(id, FrameClient.newKey()), ErrorCode.ILLEGAL_STATE);
            assertEquals("This connection has claimed its key already; a connection claims one key, once.", twice.message());
        }
        try (FrameClient client = FrameClient.connect(server)) {
            Frame.Error shortKey = client.requestFails(id -> new Frame.ClaimKey(id, new byte[8]), ErrorCode.ILLEGAL_STATE);
            assertEquals("A connection key is 32 bytes; this one has 8.", shortKey.message());
        }
    }

    @Test
    void aConnectionWithTheKeyOfALiveOneTakesOverFromIt() throws Exception {
        String queue = "KEY.TAKEOVER";
        byte[] key = FrameClient.newKey();
        try (FrameClient old = FrameClient.connect(server); FrameClient producer = FrameClient.connect(server);
             FrameClient newer = FrameClient.connect(server)) {
            String reply = old.claimKey(key) + "1";
            old.request(id -> new Frame.SetClientId(id, "takeover-app"));
            old.request(id -> new Frame.CreateTemporary(id, temporaryQueue(reply)));
            old.createSession(1, false);
            old.createConsumer(1, 1, queue, null, 10);
            producer.createSession(1, false);
            producer.sendMessage(1, TestMessages.text(queue, "in hand"));
            assertEquals(1, old.deliveries(1).get(0).deliveryCount());
            WireMessage toReply = TestMessages.text(queue, "a reply");
            toReply.destination = temporaryQueue(reply);
            producer.sendMessage(1, toReply);

            // the old connection is what the client left: the server has not seen it end
            newer.claimKey(key);
            old.awaitClosed();

            newer.request(id -> new Frame.SetClientId(id, "takeover-app")); // freed with the old connection
            newer.request(id -> new Frame.CreateTemporary(id, temporaryQueue(reply))); // handed over: kept as it is
            newer.createSession(1, false);
            newer.request(id -> new Frame.CreateConsumer(id, 1, 1, temporaryQueue(reply), null, 10, 0, null));
            assertEquals("a reply", TestMessages.body(newer.deliveries(1).get(0).message()),
                    "the reply waiting on the temporary queue came over with it");
            newer.createConsumer(1, 2, queue, null, 10);
            Frame.Deliver again = newer.deliveries(1).get(0);
            assertEquals(2, again.deliveryCount(), "the old connection's unacknowledged delivery came back redelivered");
            assertEquals("in hand", TestMessages.body(again.message()));
        }
    }

    @Test
    void onlyAConnectionOfTheSameUserTakesOver() throws Exception {
        byte[] key = FrameClient.newKey();
        try (FrameClient alice = FrameClient.tcp(server); FrameClient anonymous = FrameClient.connect(server)) {
            alice.login("alice", TestUsers.password("alice"));
            alice.claimKey(key);
            Frame.Error refused = anonymous.requestFails(id -> new Frame.ClaimKey(id, key), ErrorCode.NOT_AUTHORISED);
            assertTrue(refused.message().startsWith("An anonymous client may not take over the connection key held by"
                    + " the connection of user 'alice'"), refused.message());
            alice.createSession(1, false); // still open, and still the key's
            Frame.Error stillAlices = anonymous.requestFails(id -> new Frame.ClaimKey(id, key), ErrorCode.NOT_AUTHORISED);
            assertTrue(stillAlices.message().contains("user 'alice'"), stillAlices.message());
        }
    }
}
