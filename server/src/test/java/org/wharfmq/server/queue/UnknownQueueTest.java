package org.wharfmq.server.queue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** With autoCreate off only defined queues exist, and every way of naming another one says so. */
class UnknownQueueTest {

    private static final String EXPECTED = "Queue 'NOPE' does not exist and auto-creation is off (setting autoCreate)."
            + " Define it under 'queues' in the configuration.";
    private static TestServer testServer;
    private static WharfServer server;

    @BeforeAll
    static void start() throws Exception {
        testServer = TestServer.start(c -> c.autoCreate(false).queue("KNOWN"));
        server = testServer.server();
    }

    @AfterAll
    static void stop() {
        testServer.close();
    }

    @Test
    void createProducerOnAnUnknownQueueFails() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            Frame.Error error = client.requestFails(id -> new Frame.CreateProducer(id, 1, 2, WireDestination.queue("NOPE")),
                    ErrorCode.UNKNOWN_DESTINATION);
            assertEquals(EXPECTED, error.message());
            assertEquals(2, error.producerId());
            client.request(id -> new Frame.CreateProducer(id, 1, 3, WireDestination.queue("KNOWN")));
            client.request(id -> new Frame.CreateProducer(id, 1, 4, null)); // anonymous
        }
    }

    @Test
    void createConsumerOnAnUnknownQueueFails() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            Frame.Error error = client.requestFails(id -> new Frame.CreateConsumer(id, 1, 1, WireDestination.queue("NOPE"),
                    null, 10, 0, null), ErrorCode.UNKNOWN_DESTINATION);
            assertEquals(EXPECTED, error.message());
        }
    }

    @Test
    void aConsumerCreatedWithoutWaitingIsRefusedByConsumerFailed() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.send(new Frame.CreateConsumer(0, 1, 7, WireDestination.queue("NOPE"), null, 10, 0, null));
            Frame.ConsumerFailed failed = client.expect(Frame.ConsumerFailed.class);
            assertEquals(7, failed.consumerId(), "the refusal names the consumer, not a request");
            assertEquals(ErrorCode.UNKNOWN_DESTINATION, failed.code());
            assertEquals(EXPECTED, failed.message());
            // the id was not taken: a consumer of that id can still be created where the queue exists
            client.request(id -> new Frame.CreateConsumer(id, 1, 7, WireDestination.queue("KNOWN"), null, 10, 0, null));
        }
    }

    @Test
    void sendToAnUnknownQueueFailsSyncAndAsync() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            Frame.Error sync = client.requestFails(id -> new Frame.Send(id, 1, 1,
                    TestMessages.encode(TestMessages.text("NOPE", "x"))), ErrorCode.UNKNOWN_DESTINATION);
            assertEquals(EXPECTED, sync.message());
            client.send(new Frame.Send(0, 1, 6, TestMessages.encode(TestMessages.text("NOPE", "y"))));
            Frame.Error async = client.expect(Frame.Error.class);
            assertEquals(0, async.requestId());
            assertEquals(ErrorCode.UNKNOWN_DESTINATION, async.code());
            assertEquals(6, async.producerId());
        }
        assertFalse(server.queueManager().exists("NOPE"));
        assertEquals(Set.of("KNOWN"), server.queueManager().queueNames());
        assertThrows(IllegalArgumentException.class, () -> server.queueManager().depth("NOPE"));
    }
}
