package org.wharfmq.server.session;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Producer flow control for publishers (setting fanOutWindowBytes, docs/resilience.md): a session whose publications
 * reach N subscriptions gets back only {@code fanOutWindowBytes / N} of its window while it goes on publishing, the
 * rest kept by the server, so that no more than that waits in front of the server's fan-out; a send that reaches one
 * destination gives it its whole window back.
 */
class FanOutWindowTest {

    private static final int WINDOW = 64 * 1024;
    private static final long FAN_OUT_WINDOW = 64 * 1024;
    private static final int SUBSCRIPTIONS = 4;
    /** What the window is narrowed to at four subscriptions: 16 KiB. */
    private static final long NARROWED = FAN_OUT_WINDOW / SUBSCRIPTIONS;
    private static final String TOPIC = "fan/out";

    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = TestServer.start(c -> c.producerWindowBytes(WINDOW).fanOutWindowBytes(FAN_OUT_WINDOW));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void aPublisherToFourSubscriptionsGetsBackAQuarterOfItsWindowUntilItSendsToAQueue() throws Exception {
        try (FrameClient subscriber = FrameClient.connect(server.server());
             FrameClient publisher = FrameClient.connect(server.server())) {
            subscriber.createSession(1, false);
            for (int c = 1; c <= SUBSCRIPTIONS; c++) {
                int consumerId = c;
                subscriber.request(id -> new Frame.CreateConsumer(id, 1, consumerId, WireDestination.topic(TOPIC), null,
                        1000, 0, null));
            }
            publisher.createSession(1, false);
            assertEquals(WINDOW, publisher.producerCredit().bytes(), "the session's first window");

            WireMessage publication = TestMessages.text("unused", "p".repeat(1000));
            publication.destination = WireDestination.topic(TOPIC);
            int length = TestMessages.encode(publication).readableBytes();
            int count = WINDOW / length + 1; // the whole window, as a publisher faster than the server spends it
            for (int i = 0; i < count; i++) {
                publisher.sendMessageAsync(1, publication);
            }
            publisher.createSession(2, false); // answered after the SENDs before it are handled, their credit written
            long sent = (long) count * length;
            long returned = returnedTo(publisher, 1);
            long kept = WINDOW - NARROWED;
            assertTrue(returned <= sent - kept, "returned " + returned + " of " + sent + ": the server keeps " + kept);
            assertTrue(returned > sent - kept - NARROWED / 2 - length, "returned " + returned + " of " + sent
                    + ": the rest comes back in batches of half the narrowed window");
            subscriber.deliveries(count * SUBSCRIPTIONS); // every publication reached every subscription

            WireMessage toQueue = TestMessages.text("FAN.QUEUE", "q");
            publisher.sendMessage(1, toQueue); // one destination: the whole window again
            long total = returned + returnedTo(publisher, 1);
            assertEquals(sent + TestMessages.encode(toQueue).readableBytes(), total,
                    "everything the session sent is returned once it sends to a queue");
        }
    }

    @Test
    void theWindowIsNeverNarrowedBelowTwoPublications() throws Exception {
        String topic = TOPIC + "/large";
        try (FrameClient subscriber = FrameClient.connect(server.server());
             FrameClient publisher = FrameClient.connect(server.server())) {
            subscriber.createSession(1, false);
            for (int c = 1; c <= SUBSCRIPTIONS; c++) {
                int consumerId = c;
                subscriber.request(id -> new Frame.CreateConsumer(id, 1, consumerId, WireDestination.topic(topic), null,
                        1000, 0, null));
            }
            publisher.createSession(1, false);
            assertEquals(WINDOW, publisher.producerCredit().bytes(), "the session's first window");

            // 20 KB publications: a quarter of the window (16 KiB) would not hold one, so the window is two of them
            WireMessage publication = TestMessages.text("unused", "p".repeat(20_000));
            publication.destination = WireDestination.topic(topic);
            int length = TestMessages.encode(publication).readableBytes();
            int count = WINDOW / length + 1;
            for (int i = 0; i < count; i++) {
                publisher.sendMessageAsync(1, publication);
            }
            publisher.createSession(2, false); // answered after the SENDs before it are handled, their credit written
            long sent = (long) count * length;
            long returned = returnedTo(publisher, 1);
            long kept = WINDOW - 2L * length;
            assertTrue(returned <= sent - kept, "returned " + returned + " of " + sent + ": the server keeps " + kept);
            assertTrue(returned > sent - kept - length, "returned " + returned + " of " + sent + ": the server keeps"
                    + " no more than the window less two publications, " + kept);
            subscriber.deliveries(count * SUBSCRIPTIONS);
        }
    }

    /** The credit returned so far to session {@code sessionId}, beyond its first window (taken already). */
    private static long returnedTo(FrameClient client, int sessionId) {
        long bytes = 0;
        for (Frame.ProducerCredit credit : client.takeProducerCredits()) {
            if (credit.sessionId() == sessionId) {
                bytes += credit.bytes();
            }
        }
        return bytes;
    }
}
