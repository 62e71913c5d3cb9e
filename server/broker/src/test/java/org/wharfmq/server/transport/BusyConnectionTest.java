package org.wharfmq.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A connection whose frames are a lot of work does not keep the event loop from the others ({@link ReadFairness}): with
 * one event loop, a request on a second connection is answered while the first one's burst of publications to a
 * hundred subscribers is still being processed, not after it.
 */
class BusyConnectionTest {

    private static final String TOPIC = "BUSY/T";
    private static final int SUBSCRIBERS = 100;
    // 200,000 deliveries: far more than one 1 ms turn of work, and long enough that the other connection's request,
    // written by this thread just after the burst, reaches the server while the burst is still being processed even
    // when this thread is descheduled for a while in between (with 400, a CI run's whole burst took under 90 ms since
    // a publication's copies are offered as they are routed, and the request came after it once)
    private static final int PUBLICATIONS = 2_000;
    private static TestServer testServer;
    private static WharfServer server;

    @BeforeAll
    static void start() throws Exception {
        // no heartbeat: on a loaded machine the burst may take longer than an interval, and a PING would come first
        testServer = TestServer.start(c -> c.ioThreads(1).heartbeatMillis(0));
        server = testServer.server();
    }

    @AfterAll
    static void stop() {
        testServer.close();
    }

    @Test
    void aBurstOfPublicationsDoesNotHoldUpAnotherConnectionsRequest() throws Exception {
        try (FrameClient subscribers = FrameClient.tcp(server);
             FrameClient publisher = FrameClient.tcp(server);
             FrameClient other = FrameClient.tcp(server)) {
            subscribers.hello();
            subscribers.createSession(1, false);
            for (int c = 1; c <= SUBSCRIBERS; c++) {
                int consumerId = c;
                subscribers.request(id -> new Frame.CreateConsumer(id, 1, consumerId, WireDestination.topic(TOPIC),
                        null, PUBLICATIONS, 0, null));
            }
            publisher.hello();
            publisher.createSession(1, false);
            other.hello();

            // the whole burst in one write, so that it arrives before the other connection's request; its last
            // frame is a request whose OK says the burst has been processed
            ByteBuf burst = Unpooled.buffer();
            WireMessage message = TestMessages.text("unused", "x".repeat(100));
            message.destination = WireDestination.topic(TOPIC);
            for (int i = 0; i < PUBLICATIONS; i++) {
                FrameClient.append(burst, new Frame.Send(0, 1, 1, TestMessages.encode(message)));
            }
            int burstDone = publisher.requestId();
            FrameClient.append(burst, new Frame.CreateSession(burstDone, 2, false, 1));
            publisher.sendRaw(burst);

            int answered = other.requestId();
            other.send(new Frame.CreateSession(answered, 1, false, 1));
            assertEquals(new Frame.Ok(answered), other.next());
            // both connections' answers are read by the test client's one event loop, in the order they arrived
            assertFalse(publisher.hasFrame(), "the other connection was answered only after the whole burst");

            assertEquals(new Frame.Ok(burstDone), publisher.next(), "the burst is processed all the same");
        }
    }
}
