package org.wharfmq.server.topic;

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
import org.wharfmq.server.WharfServer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The topic manager keeps the names of the live temporary topics, on the wire: a name is taken by one connection
 * at a time (its own namespace's: another connection cannot even try), a temporary topic is not deleted while it has
 * subscribers, and once deleted it is an unknown destination to publishers.
 */
@Timeout(60)
class TemporaryTopicNamesTest {

    private static TestServer testServer;
    private static WharfServer server;

    @BeforeAll
    static void start() throws Exception {
        testServer = TestServer.start();
        server = testServer.server();
    }

    @AfterAll
    static void stop() {
        testServer.close();
    }

    @Test
    void aNameIsTakenOnceAndADeletedTopicIsAnUnknownDestination() throws Exception {
        try (FrameClient owner = FrameClient.connect(server); FrameClient other = FrameClient.connect(server)) {
            String name = owner.claimKey(FrameClient.newKey()) + "1";
            other.claimKey(FrameClient.newKey());
            WireDestination topic = new WireDestination(WireDestination.Kind.TEMPORARY_TOPIC, name);
            owner.request(id -> new Frame.CreateTemporary(id, topic));
            assertTrue(server.topicManager().temporaryTopicExists(name));

            Frame.Error clash = other.requestFails(id -> new Frame.CreateTemporary(id, topic), ErrorCode.NOT_AUTHORISED);
            assertTrue(clash.message().startsWith("Temporary topic name '" + name + "' was refused: a connection creates"
                    + " temporary destinations only in its own namespace"), clash.message());
            // the refused creation gave the other connection nothing: the topic is still the owner's alone
            Frame.Error notOwner = other.requestFails(id -> new Frame.DeleteTemporary(id, topic), ErrorCode.ILLEGAL_STATE);
            assertTrue(notOwner.message().contains("belongs to another connection"), notOwner.message());

            owner.createSession(1, false);
            owner.request(id -> new Frame.CreateConsumer(id, 1, 1, topic, null, 10, 0, null));
            Frame.Error inUse = owner.requestFails(id -> new Frame.DeleteTemporary(id, topic), ErrorCode.ILLEGAL_STATE);
            assertEquals("Temporary topic '" + name + "' still has 1 subscriber(s); close them before deleting it.",
                    inUse.message());
            assertTrue(server.topicManager().temporaryTopicExists(name));

            owner.request(id -> new Frame.CloseConsumer(id, 1, 1, 0));
            owner.request(id -> new Frame.DeleteTemporary(id, topic));
            assertFalse(server.topicManager().temporaryTopicExists(name));

            other.createSession(1, false);
            Frame.Error producer = other.requestFails(id -> new Frame.CreateProducer(id, 1, 1, topic),
                    ErrorCode.UNKNOWN_DESTINATION);
            assertEquals("Temporary topic '" + name + "' does not exist: it was deleted or the connection that created"
                    + " it has closed.", producer.message());
            WireMessage message = TestMessages.text("unused", "after delete");
            message.destination = topic;
            Frame.Error publish = other.requestFails(id -> new Frame.Send(id, 1, 1, TestMessages.encode(message)),
                    ErrorCode.UNKNOWN_DESTINATION);
            assertEquals(producer.message(), publish.message());

            // the name is free again once its topic is gone
            owner.request(id -> new Frame.CreateTemporary(id, topic));
            assertTrue(server.topicManager().temporaryTopicExists(name));
            owner.request(Frame.Close::new); // answered once the connection's resources are released
            assertFalse(server.topicManager().temporaryTopicExists(name), "deleted with the connection that created it");
        }
    }
}
