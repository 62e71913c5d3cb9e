package org.wharfmq.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The publications that one read of a connection delivers to sessions whose connection another event loop owns reach
 * that loop as one task, not as a task per session ({@code DeliveryHandOff}), and arrive complete and in order. The
 * publisher and the subscribers are on connections of different kinds (TCP and in-VM), whose loops are apart; every
 * loop of the subscribers' kind is held up by a task of the test's while the publications are read, so what the
 * publisher's loop queued on them can be counted: no timing is involved.
 */
class CrossLoopDeliveryTest {

    private static final String TOPIC = "XLOOP/T";
    private static final int SESSIONS = 20;
    private static final int PUBLICATIONS = 5;

    private TestServer testServer;
    private WharfServer server;

    @BeforeEach
    void start() throws Exception {
        testServer = TestServer.start(c -> c.ioThreads(2).heartbeatMillis(0)); // no PING tasks while a loop is held
        server = testServer.server();
    }

    @AfterEach
    void stop() {
        testServer.close();
    }

    @ParameterizedTest(name = "publisher over {0}")
    @ValueSource(strings = {"tcp", "vm"})
    void oneReadsPublicationsReachAnotherLoopsSessionsInOneTask(String publisherOver) throws Exception {
        boolean subscribersInVm = publisherOver.equals("tcp");
        try (FrameClient subscribers = subscribersInVm ? FrameClient.inVm(server) : FrameClient.tcp(server);
             FrameClient publisher = subscribersInVm ? FrameClient.tcp(server) : FrameClient.inVm(server)) {
            subscribers.hello();
            for (int s = 1; s <= SESSIONS; s++) {
                int session = s;
                subscribers.createSession(session, false);
                subscribers.request(id -> new Frame.CreateConsumer(id, session, session, WireDestination.topic(TOPIC),
                        null, PUBLICATIONS, 0, null));
            }
            publisher.hello();
            publisher.createSession(1, false);

            List<SingleThreadEventExecutor> held = new ArrayList<>();
            for (EventExecutor loop : subscribersInVm ? FrameClient.inVmLoops() : server.networkLoops()) {
                held.add((SingleThreadEventExecutor) loop);
            }
            CountDownLatch holding = new CountDownLatch(held.size());
            CountDownLatch release = new CountDownLatch(1);
            held.forEach(loop -> loop.execute(() -> {
                holding.countDown();
                awaitQuietly(release);
            }));
            int pending = 0;
            try {
                assertTrue(holding.await(10, TimeUnit.SECONDS));
                // the publications in one write, so that they are one read (or a few); a request ends the write
                ByteBuf burst = Unpooled.buffer();
                for (int i = 0; i < PUBLICATIONS; i++) {
                    WireMessage message = TestMessages.text(TOPIC, "publication " + i);
                    message.destination = WireDestination.topic(TOPIC);
                    FrameClient.append(burst, new Frame.Send(0, 1, 1, TestMessages.encode(message)));
                }
                int burstDone = publisher.requestId();
                FrameClient.append(burst, new Frame.CreateSession(burstDone, 2, false, 1));
                publisher.sendRaw(burst);
                assertEquals(new Frame.Ok(burstDone), publisher.next());
                // answered in a later read: the burst's read, hand-off included, has ended before this returns
                publisher.createSession(3, false);
                for (SingleThreadEventExecutor loop : held) {
                    pending += loop.pendingTasks();
                }
                assertFalse(subscribers.hasFrame(), "a delivery left while the subscribers' loop was held");
            } finally {
                release.countDown();
            }
            assertEquals(1, pending, PUBLICATIONS + " publications to " + SESSIONS + " sessions of another loop"
                    + " queued " + pending + " tasks on it; one is expected");

            List<List<String>> received = new ArrayList<>();
            for (int s = 0; s < SESSIONS; s++) {
                received.add(new ArrayList<>());
            }
            for (Frame.Deliver d : subscribers.deliveries(SESSIONS * PUBLICATIONS)) {
                received.get(d.consumerId() - 1).add(TestMessages.body(d.message()));
                d.message().release();
            }
            List<String> sent = IntStream.range(0, PUBLICATIONS).mapToObj(i -> "publication " + i).toList();
            for (int s = 0; s < SESSIONS; s++) {
                assertEquals(sent, received.get(s), "session " + (s + 1));
            }
            subscribers.expectNothingMore();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
