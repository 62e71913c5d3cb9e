package org.wharfmq.server.session;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.queue.SystemQueues;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * REJECT (a client cannot decode a delivery) moves only the rejecting consumer's own unsettled delivery to the
 * dead-letter queue: a client cannot dead-letter another connection's delivery, one already acknowledged, or one
 * that does not exist, and a reason of any length makes a dead letter of bounded size.
 */
class HostileRejectTest {

    private TestServer testServer;
    private WharfServer server;

    @BeforeEach
    void start() throws Exception {
        testServer = TestServer.start(c -> c.queue("ORDERS"));
        server = testServer.server();
    }

    @AfterEach
    void stop() {
        testServer.close();
    }

    private void send(String... bodies) throws Exception {
        try (FrameClient producer = FrameClient.connect(server)) {
            producer.createSession(1, false);
            for (String body : bodies) {
                producer.sendMessage(1, TestMessages.text("ORDERS", body));
            }
        }
    }

    @Test
    void anotherConnectionsDeliveryASettledOneAndAnUnknownOneCannotBeRejected() throws Exception {
        try (FrameClient owner = FrameClient.connect(server); FrameClient hostile = FrameClient.connect(server)) {
            owner.createSession(1, false);
            owner.createConsumer(1, 7, "ORDERS", null, 10);
            send("first", "second");
            List<Frame.Deliver> deliveries = owner.deliveries(2);
            deliveries.forEach(d -> d.message().release());

            hostile.createSession(1, false);
            hostile.createConsumer(1, 8, "ORDERS", null, 10);
            // the owner's consumer id and delivery ids, from another connection: not that connection's to reject
            hostile.send(new Frame.Reject(7, deliveries.get(0).deliveryId(), "not mine"));
            hostile.send(new Frame.Reject(8, deliveries.get(0).deliveryId(), "not delivered to me"));
            hostile.expectNothingMore(); // the server has handled both

            // the owner acknowledges the first, then rejects it anyway, and a delivery id it never had
            owner.request(id -> new Frame.Ack(id, 1, List.of(new Frame.Consumed(7, deliveries.get(0).deliveryId()))));
            owner.send(new Frame.Reject(7, deliveries.get(0).deliveryId(), "already acknowledged"));
            owner.send(new Frame.Reject(7, 999_999, "never delivered"));
            owner.expectNothingMore();
        }
        assertEquals(false, server.queueManager().queueNames().contains(SystemQueues.DEAD_LETTER_QUEUE),
                "nothing dead-lettered (the dead-letter queue is made by its first letter)");
        assertEquals(1, server.queueManager().depth("ORDERS"), "the unacknowledged second came back to its queue");
    }

    @Test
    void aHugeReasonMakesADeadLetterOfBoundedSize() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.createConsumer(1, 7, "ORDERS", null, 10);
            send("poison");
            Frame.Deliver d = client.expect(Frame.Deliver.class);
            int original = d.message().readableBytes();
            d.message().release();
            client.send(new Frame.Reject(7, d.deliveryId(), "x".repeat(60_000)));
            client.expectNothingMore();
            client.createConsumer(1, 9, SystemQueues.DEAD_LETTER_QUEUE, null, 10);
            Frame.Deliver letter = client.expect(Frame.Deliver.class);
            int size = letter.message().readableBytes();
            letter.message().release();
            assertEquals(true, size < original + 2_000, "dead letter of " + size + " bytes for a " + original
                    + "-byte message and a 60,000-character reason");
        }
    }
}
