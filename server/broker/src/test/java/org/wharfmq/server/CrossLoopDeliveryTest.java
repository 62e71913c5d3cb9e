package org.wharfmq.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
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
 * publisher's loop queued on them can be counted: no timing is involved. Those it delivers to another connection of
 * its own loop leave when the read ends, all of that connection's frames in one buffer ({@code CopiedRun}), and the
 * reading connection's own sessions get theirs at once, ahead of the read's later answers: publisher and subscribers
 * are then in-VM clients, whose server ends share their one loop, and an in-VM connection passes each buffer the
 * server writes as it is, so the buffers are counted (one per turn of the read: {@code ReadFairness} may cut it).
 */
class CrossLoopDeliveryTest {

    private static final String TOPIC = "XLOOP/T";
    private static final int SESSIONS = 20;
    private static final int PUBLICATIONS = 5;
    private static final int OWN_CONSUMER = 99;

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
            subscribe(subscribers);
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
                int burstDone = publishInOneWrite(publisher);
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

            expectEverySessionGotEveryPublicationInOrder(subscribers);
            subscribers.expectNothingMore();
        }
    }

    @Test
    void oneReadsPublicationsToAConnectionOfTheSameLoopLeaveInOneBuffer() throws Exception {
        try (FrameClient subscribers = FrameClient.inVm(server); FrameClient publisher = FrameClient.inVm(server)) {
            subscribe(subscribers);
            publisher.hello();
            publisher.createSession(1, false);
            // the publisher's own subscriber: its deliveries come before the answer the same read writes after them
            publisher.createSession(4, false);
            publisher.request(id -> new Frame.CreateConsumer(id, 4, OWN_CONSUMER, WireDestination.topic(TOPIC), null,
                    PUBLICATIONS, 0, null));
            int before = subscribers.buffersRead();

            int burstDone = publishInOneWrite(publisher);

            List<String> own = new ArrayList<>();
            for (Frame.Deliver d : publisher.deliveries(PUBLICATIONS)) {
                own.add(TestMessages.body(d.message()));
            }
            assertEquals(sent(), own, "the reading connection's own subscriber, ahead of the read's answer");
            assertEquals(new Frame.Ok(burstDone), publisher.next());
            expectEverySessionGotEveryPublicationInOrder(subscribers);
            // one buffer per turn of the publisher's read (ReadFairness may cut a read on a slow machine: at most one
            // turn per publication); a buffer per session and publication was SESSIONS * PUBLICATIONS
            int buffers = subscribers.buffersRead() - before;
            assertTrue(buffers <= PUBLICATIONS, PUBLICATIONS + " publications to " + SESSIONS + " sessions of one"
                    + " connection on the publisher's loop came in " + buffers + " buffers; at most one per turn of the"
                    + " publisher's read is expected");
            subscribers.expectNothingMore();
        }
    }

    /** Consumers of the topic, one in each of {@link #SESSIONS} sessions of {@code subscribers}. */
    private static void subscribe(FrameClient subscribers) throws InterruptedException {
        subscribers.hello();
        for (int s = 1; s <= SESSIONS; s++) {
            int session = s;
            subscribers.createSession(session, false);
            subscribers.request(id -> new Frame.CreateConsumer(id, session, session, WireDestination.topic(TOPIC),
                    null, PUBLICATIONS, 0, null));
        }
    }

    /**
     * The publications in one write of session 1 of {@code publisher}, so that they are one read (or a few), ended by
     * a request; returns the request's id.
     */
    private static int publishInOneWrite(FrameClient publisher) throws InterruptedException {
        ByteBuf burst = Unpooled.buffer();
        for (int i = 0; i < PUBLICATIONS; i++) {
            WireMessage message = TestMessages.text(TOPIC, "publication " + i);
            message.destination = WireDestination.topic(TOPIC);
            FrameClient.append(burst, new Frame.Send(0, 1, 1, TestMessages.encode(message)));
        }
        int burstDone = publisher.requestId();
        FrameClient.append(burst, new Frame.CreateSession(burstDone, 2, false, 1));
        publisher.sendRaw(burst);
        return burstDone;
    }

    private static void expectEverySessionGotEveryPublicationInOrder(FrameClient subscribers) throws InterruptedException {
        List<List<String>> received = new ArrayList<>();
        for (int s = 0; s < SESSIONS; s++) {
            received.add(new ArrayList<>());
        }
        for (Frame.Deliver d : subscribers.deliveries(SESSIONS * PUBLICATIONS)) {
            received.get(d.consumerId() - 1).add(TestMessages.body(d.message()));
            d.message().release();
        }
        for (int s = 0; s < SESSIONS; s++) {
            assertEquals(sent(), received.get(s), "session " + (s + 1));
        }
    }

    private static List<String> sent() {
        return IntStream.range(0, PUBLICATIONS).mapToObj(i -> "publication " + i).toList();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
