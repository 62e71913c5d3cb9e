package org.wharfmq.server.session;

import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.TestClock;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.store.InMemoryMessageStore;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A SEND with a JMS delivery time is offered when that time has come by the queue manager's clock (the one its
 * queues read for expiry and tests move), not by the system's.
 */
class DeliveryTimeTest {

    private static final long HOUR = 3_600_000;

    @Test
    void aMessageIsDueByTheQueueManagersClock() throws Exception {
        TestClock clock = new TestClock();
        clock.advance(-HOUR); // the queue manager's clock is an hour behind the system's
        try (TestServer server = TestServer.start(config -> config,
                config -> WharfServer.builder(config).store(new InMemoryMessageStore()).clock(clock).start());
             FrameClient client = FrameClient.connect(server.server())) {
            client.createSession(1, false);
            client.createConsumer(1, 1, "DUE", null, 0);
            WireMessage later = TestMessages.text("DUE", "later");
            later.deliveryTime = System.currentTimeMillis() - 1000; // due by the system's clock, not by the server's
            client.sendMessage(1, later);
            client.sendMessage(1, TestMessages.text("DUE", "now"));

            client.send(new Frame.Pull(1, 1));
            assertEquals("now", TestMessages.body(client.expect(Frame.Deliver.class).message()));
            assertEquals(new Frame.PullDone(1, 1), client.next());
            client.send(new Frame.Pull(1, 2));
            assertEquals(new Frame.PullDone(1, 2), client.next(), "'later' is not due for another 59 minutes");
        }
    }
}
