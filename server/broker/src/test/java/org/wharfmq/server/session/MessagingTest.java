package org.wharfmq.server.session;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.queue.DeliveryWindow;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.QueueConsumer;
import org.wharfmq.server.queue.QueuedMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sending, consuming, acknowledging and transactions, checked frame by frame against a real server. */
class MessagingTest {

    private static TestServer testServer;
    private static WharfServer server;
    private static int queueNumber;

    @BeforeAll
    static void start() throws Exception {
        testServer = TestServer.start(c -> c.queue("TINY", 1).queue("FLOW.IN").queue("FLOW.OUT"));
        server = testServer.server();
    }

    @AfterAll
    static void stop() {
        testServer.close();
    }

    private static String newQueue() {
        return "MSG." + (++queueNumber);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void deliveredBytesAreExactlyTheSentBytes(boolean inVm) throws Exception {
        String queue = newQueue();
        WireMessage m = TestMessages.text(queue, "ignored");
        m.bodyType = BodyType.BYTES;
        m.persistent = true;
        m.correlationId = "corr";
        m.replyTo = WireDestination.queue("REPLY");
        m.properties.put("n", 42);
        m.properties.put("s", "text");
        m.body = new byte[100_000];
        new Random(7).nextBytes(m.body);
        byte[] sent = TestMessages.bytes(TestMessages.encode(m));
        try (FrameClient producer = inVm ? FrameClient.inVm(server) : FrameClient.tcp(server);
             FrameClient consumer = inVm ? FrameClient.inVm(server) : FrameClient.tcp(server)) {
            producer.hello();
            consumer.hello();
            producer.createSession(1, false);
            producer.sendMessage(1, m);
            consumer.createSession(1, false);
            consumer.createConsumer(1, 7, queue, null, 10);
            Frame.Deliver d = consumer.expect(Frame.Deliver.class);
            assertEquals(7, d.consumerId());
            assertEquals(1, d.deliveryId());
            assertEquals(1, d.deliveryCount());
            assertArrayEquals(sent, TestMessages.bytes(d.message()));
        }
    }

    @Test
    void creditLimitsPushesUntilTheClientGivesMore() throws Exception {
        String queue = newQueue();
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.createConsumer(1, 1, queue, null, 2);
            for (int i = 1; i <= 5; i++) {
                client.sendMessageAsync(1, TestMessages.text(queue, "m" + i));
            }
            assertEquals(List.of("m1", "m2"), bodies(client.deliveries(2)));
            client.expectNothingMore();
            client.send(new Frame.Credit(1, 3));
            List<Frame.Deliver> rest = client.deliveries(3);
            assertEquals(List.of("m3", "m4", "m5"), bodies(rest));
            assertEquals(List.of(3L, 4L, 5L), rest.stream().map(Frame.Deliver::deliveryId).toList());
        }
    }

    @Test
    void pullDeliversOneMessageBeforePullDoneAndOnlyPullDoneWhenEmpty() throws Exception {
        String queue = newQueue();
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.createConsumer(1, 1, queue, null, 0);
            client.sendMessage(1, TestMessages.text(queue, "only"));
            client.expectNothingMore();
            client.send(new Frame.Pull(1, 11));
            assertEquals("only", TestMessages.body(client.expect(Frame.Deliver.class).message()));
            assertEquals(new Frame.PullDone(1, 11), client.next());
            client.send(new Frame.Pull(1, 12));
            assertEquals(new Frame.PullDone(1, 12), client.next());
        }
    }

    @Test
    void pullDoneNeverOvertakesAMessageHandedOverByAnotherConnection() throws Exception {
        String queue = newQueue();
        try (FrameClient producer = FrameClient.connect(server); FrameClient consumer = FrameClient.connect(server)) {
            producer.createSession(1, false);
            consumer.createSession(1, false);
            consumer.createConsumer(1, 1, queue, null, 1000);
            for (int i = 0; i < 200; i++) {
                producer.sendMessage(1, TestMessages.text(queue, "m" + i));
                // the SEND is answered, so the message is on its way to the consumer: PULL must not miss it
                consumer.send(new Frame.Pull(1, i));
                Frame first = consumer.next();
                if (first instanceof Frame.Deliver d) {
                    assertEquals("m" + i, TestMessages.body(d.message()));
                    assertEquals(new Frame.PullDone(1, i), consumer.next());
                } else {
                    throw new AssertionError("round " + i + ": " + first + " before the message");
                }
            }
        }
    }

    @Test
    void acknowledgedMessagesLeaveTheQueue() throws Exception {
        String queue = newQueue();
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            for (int i = 1; i <= 3; i++) {
                client.sendMessage(1, TestMessages.text(queue, "m" + i));
            }
            client.createConsumer(1, 1, queue, null, 10);
            client.deliveries(3);
            assertEquals(3, server.queueManager().depth(queue), "delivered but unacknowledged");
            client.request(id -> new Frame.Ack(id, 1, List.of(new Frame.Consumed(1, 2))));
            assertEquals(1, server.queueManager().depth(queue));
        }
    }

    /**
     * One ACK for consumers on two queues, each acknowledged up to a delivery of its own: the settled deliveries form
     * runs by queue (A, B, A), each run leaves its own queue, and what no consumer's id covers stays.
     */
    @Test
    void anAckOverConsumersOfTwoQueuesTakesEachRunFromItsOwnQueue() throws Exception {
        String a = newQueue();
        String b = newQueue();
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            for (int i = 1; i <= 3; i++) {
                client.sendMessage(1, TestMessages.text(a, "a" + i));
                client.sendMessage(1, TestMessages.text(b, "b" + i));
            }
            client.createConsumer(1, 1, a, null, 2);
            List<Frame.Deliver> first = client.deliveries(2);
            client.createConsumer(1, 2, b, null, 10);
            List<Frame.Deliver> second = client.deliveries(3);
            client.createConsumer(1, 3, a, null, 10);
            Frame.Deliver third = client.expect(Frame.Deliver.class);
            assertEquals("a3", TestMessages.body(third.message()));
            assertEquals(3, server.queueManager().depth(a), "delivered but unacknowledged");
            assertEquals(3, server.queueManager().depth(b), "delivered but unacknowledged");

            client.request(id -> new Frame.Ack(id, 1, List.of(new Frame.Consumed(1, first.get(0).deliveryId()),
                    new Frame.Consumed(2, second.get(1).deliveryId()), new Frame.Consumed(3, third.deliveryId()))));
            assertEquals(1, server.queueManager().depth(a), "a2 is left: consumer 1 acknowledged a1 only");
            assertEquals(1, server.queueManager().depth(b), "b3 is left: consumer 2 acknowledged up to b2");

            client.request(id -> new Frame.Ack(id, 1, List.of(new Frame.Consumed(1, first.get(1).deliveryId()),
                    new Frame.Consumed(2, second.get(2).deliveryId()))));
            assertEquals(0, server.queueManager().depth(a));
            assertEquals(0, server.queueManager().depth(b));
        }
    }

    @Test
    void transactedSendsBecomeVisibleAtCommit() throws Exception {
        String queue = newQueue();
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, true);
            client.createSession(2, false);
            client.createConsumer(2, 1, queue, null, 10);
            client.sendMessageAsync(1, TestMessages.text(queue, "t1"));
            client.sendMessageAsync(1, TestMessages.text(queue, "t2"));
            client.expectNothingMore();
            assertEquals(2, server.queueManager().depth(queue), "uncommitted sends hold their place");
            int commit = client.requestId();
            client.send(new Frame.Commit(commit, 1, List.of()));
            assertEquals(List.of("t1", "t2"), bodies(client.deliveries(2)));
            assertEquals(new Frame.Ok(commit), client.next());
        }
    }

    @Test
    void aCommitSettlesWhatItConsumedBeforeItsSendsAreSeen() throws Exception {
        // a consumer of the output that, as soon as it has a message, asks the server for the input's depth (the
        // input queue's lock: a barrier); it runs where the commit hands the output over
        ConcurrentLinkedQueue<Long> inputDepthSeen = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<QueuedMessage> received = new ConcurrentLinkedQueue<>();
        QueueConsumer outputConsumer = new QueueConsumer() {
            private final DeliveryWindow window = new DeliveryWindow(10, false);

            @Override
            public Selector selector() {
                return Selector.ALL_MATCH;
            }

            @Override
            public DeliveryWindow window() {
                return window;
            }

            @Override
            public void deliver(QueuedMessage message) {
                received.add(message);
            }

            @Override
            public void flushDeliveries() {
                inputDepthSeen.add(server.queueManager().depth("FLOW.IN"));
            }
        };
        LocalQueue output = server.queueManager().find("FLOW.OUT");
        output.addConsumer(outputConsumer);
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.sendMessage(1, TestMessages.text("FLOW.IN", "input"));
            client.createSession(2, true); // the flow: gets from FLOW.IN, puts to FLOW.OUT, commits both
            client.createConsumer(2, 1, "FLOW.IN", null, 1);
            Frame.Deliver input = client.expect(Frame.Deliver.class);
            input.message().release();
            client.sendMessageAsync(2, TestMessages.text("FLOW.OUT", "output"));
            client.request(id -> new Frame.Commit(id, 2, List.of(new Frame.Consumed(1, input.deliveryId()))));
        } finally {
            output.removeConsumer(outputConsumer);
        }
        assertEquals(1, received.size(), "the output was handed over by the time the commit answered");
        assertEquals(List.of(0L), List.copyOf(inputDepthSeen),
                "the input had left its queue when the output's consumer saw the output");
        received.forEach(output::acknowledge);
    }

    @Test
    void rollbackDropsTransactedSends() throws Exception {
        String queue = newQueue();
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, true);
            client.sendMessageAsync(1, TestMessages.text(queue, "dropped"));
            client.request(id -> new Frame.Rollback(id, 1, List.of()));
            assertEquals(0, server.queueManager().depth(queue));
            client.createSession(2, false);
            client.createConsumer(2, 1, queue, null, 10);
            client.expectNothingMore();
        }
    }

    @Test
    void failedSendInATransactionMakesCommitRollBackNamingTheCause() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(3, true);
            client.sendMessageAsync(3, TestMessages.text("TINY", "fits"));
            client.send(new Frame.Send(0, 3, 9, TestMessages.encode(TestMessages.text("TINY", "too many"))));
            Frame.Error sendError = client.expect(Frame.Error.class);
            assertEquals(0, sendError.requestId());
            assertEquals(ErrorCode.QUEUE_FULL, sendError.code());
            assertEquals(3, sendError.sessionId());
            assertEquals(9, sendError.producerId());
            Frame.Error commitError = client.requestFails(id -> new Frame.Commit(id, 3, List.of()),
                    ErrorCode.TRANSACTION_ROLLED_BACK);
            assertTrue(commitError.message().contains("a send in it failed: Queue 'TINY' is full"), commitError.message());
            assertEquals(0, server.queueManager().depth("TINY"), "the transaction's other send is gone too");
            client.request(id -> new Frame.Commit(id, 3, List.of())); // the next transaction starts clean
        }
    }

    @Test
    void rollbackReturnsEverythingAndCountsOnlyWhatWasConsumed() throws Exception {
        String queue = newQueue();
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            for (int i = 1; i <= 3; i++) {
                client.sendMessage(1, TestMessages.text(queue, "m" + i));
            }
            client.createSession(2, true);
            client.createConsumer(2, 5, queue, null, 10);
            List<Frame.Deliver> first = client.deliveries(3);
            assertEquals(List.of(1L, 2L, 3L), first.stream().map(Frame.Deliver::deliveryId).toList());
            int rollback = client.requestId();
            client.send(new Frame.Rollback(rollback, 2, List.of(new Frame.Consumed(5, 1))));
            assertEquals(new Frame.Ok(rollback), client.next(), "nothing may be redelivered before the OK");
            List<Frame.Deliver> again = client.deliveries(3);
            assertEquals(List.of("m1", "m2", "m3"), bodies(again));
            assertEquals(List.of(2, 1, 1), again.stream().map(Frame.Deliver::deliveryCount).toList());
            assertEquals(List.of(4L, 5L, 6L), again.stream().map(Frame.Deliver::deliveryId).toList());
            client.request(id -> new Frame.Commit(id, 2, List.of(new Frame.Consumed(5, 6))));
            assertEquals(0, server.queueManager().depth(queue));
        }
    }

    @Test
    void closedConsumerReturnsWhatItNeverConsumedUncountedAndHoldsTheRest() throws Exception {
        String queue = newQueue();
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            for (int i = 1; i <= 3; i++) {
                client.sendMessage(1, TestMessages.text(queue, "m" + i));
            }
            client.createSession(2, false); // stands for CLIENT_ACKNOWLEDGE: nothing is acknowledged
            client.createConsumer(2, 1, queue, null, 10);
            client.deliveries(3);
            client.send(new Frame.CloseConsumer(0, 2, 1, 1));
            client.createSession(3, false);
            client.createConsumer(3, 2, queue, null, 10);
            List<Frame.Deliver> returned = client.deliveries(2);
            assertEquals(List.of("m2", "m3"), bodies(returned));
            assertEquals(List.of(1, 1), returned.stream().map(Frame.Deliver::deliveryCount).toList());
            int close = client.requestId();
            client.send(new Frame.CloseSession(close, 2));
            // m1 goes back and straight to the waiting consumer, on this connection, before the OK is written
            Frame.Deliver m1 = client.expect(Frame.Deliver.class);
            assertEquals("m1", TestMessages.body(m1.message()));
            assertEquals(2, m1.deliveryCount(), "the application had consumed it");
            assertEquals(new Frame.Ok(close), client.next());
        }
    }

    @Test
    void droppedConnectionReturnsUnacknowledgedMessagesMarkedRedelivered() throws Exception {
        String queue = newQueue();
        try (FrameClient second = FrameClient.connect(server)) {
            try (FrameClient first = FrameClient.connect(server)) {
                first.createSession(1, false);
                first.sendMessage(1, TestMessages.text(queue, "m1"));
                first.createConsumer(1, 1, queue, null, 10);
                first.expect(Frame.Deliver.class);
            } // closes the socket without CLOSE
            second.createSession(1, false);
            second.createConsumer(1, 1, queue, null, 10);
            Frame.Deliver d = second.expect(Frame.Deliver.class);
            assertEquals("m1", TestMessages.body(d.message()));
            assertEquals(2, d.deliveryCount());
        }
    }

    @Test
    void requesterGetsItsReplyThroughTheCorrelationIndex() throws Exception {
        String replies = newQueue();
        try (FrameClient requesters = FrameClient.connect(server); FrameClient responder = FrameClient.connect(server)) {
            requesters.createSession(1, false);
            for (int i = 0; i < 200; i++) {
                requesters.createConsumer(1, 100 + i, replies, "JMSCorrelationID = 'req-" + i + "'", 1);
            }
            responder.createSession(1, false);
            long visitsBefore = server.queueManager().queue(replies).consumerVisits();
            WireMessage reply = TestMessages.text(replies, "reply-137");
            reply.correlationId = "req-137";
            responder.sendMessage(1, reply);
            Frame.Deliver d = requesters.expect(Frame.Deliver.class);
            assertEquals(237, d.consumerId());
            assertEquals("reply-137", TestMessages.body(d.message()));
            assertEquals(1, server.queueManager().queue(replies).consumerVisits() - visitsBefore);
            requesters.send(new Frame.Ack(0, 1, List.of(new Frame.Consumed(237, d.deliveryId()))));
            requesters.send(new Frame.CloseConsumer(0, 1, 237, d.deliveryId()));
            // the responder's send was another connection's: pulling a requester of the same session (whose selector
            // takes nothing) makes the server write whatever else that send delivered to the session first
            requesters.expectNothingMore(100);
            assertEquals(0, server.queueManager().depth(replies));
        }
    }

    @Test
    void queueFullIsReportedToSyncAndAsyncSends() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.sendMessage(1, TestMessages.text("TINY", "first"));
            Frame.Error sync = client.requestFails(
                    id -> new Frame.Send(id, 1, 4, TestMessages.encode(TestMessages.text("TINY", "second"))),
                    ErrorCode.QUEUE_FULL);
            assertEquals("Queue 'TINY' is full: it holds its maximum depth of 1 messages (setting maxDepth of queue"
                    + " 'TINY'). Consume messages or raise the limit.", sync.message());
            client.send(new Frame.Send(0, 1, 5, TestMessages.encode(TestMessages.text("TINY", "third"))));
            Frame.Error async = client.expect(Frame.Error.class);
            assertEquals(0, async.requestId());
            assertEquals(ErrorCode.QUEUE_FULL, async.code());
            assertEquals(1, async.sessionId());
            assertEquals(5, async.producerId());
            client.createConsumer(1, 1, "TINY", null, 1);
            long deliveryId = client.expect(Frame.Deliver.class).deliveryId();
            client.request(id -> new Frame.Ack(id, 1, List.of(new Frame.Consumed(1, deliveryId))));
            assertEquals(0, server.queueManager().depth("TINY"));
        }
    }

    @Test
    void invalidSelectorIsRefused() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            Frame.Error error = client.requestFails(id -> new Frame.CreateConsumer(id, 1, 1,
                    WireDestination.queue(newQueue()), "color = ", 10, 0, null), ErrorCode.INVALID_SELECTOR);
            assertTrue(error.message().startsWith("Invalid message selector: "), error.message());
        }
    }

    @Test
    void topicRulesAreCheckedOnTheWire() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            Frame.Error consumer = client.requestFails(id -> new Frame.CreateConsumer(id, 1, 1,
                    WireDestination.topic("prices/#"), null, 10, Frame.CONSUMER_DURABLE, "d"), ErrorCode.ILLEGAL_STATE);
            assertTrue(consumer.message().contains("needs a client ID"), consumer.message());
            WireMessage m = TestMessages.text("x", "x");
            m.destination = WireDestination.topic("prices/+");
            Frame.Error send = client.requestFails(id -> new Frame.Send(id, 1, 1, TestMessages.encode(m)),
                    ErrorCode.UNKNOWN_DESTINATION);
            assertTrue(send.message().contains("wildcard"), send.message());
            client.requestFails(id -> new Frame.SetClientId(id, "late"), ErrorCode.ILLEGAL_STATE);
        }
    }

    @Test
    void requestsOnAnUnknownSessionAreIllegalState() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            Frame.Error error = client.requestFails(id -> new Frame.Commit(id, 42, List.of()), ErrorCode.ILLEGAL_STATE);
            assertEquals("Session 42 is not open on this connection.", error.message());
            client.createSession(1, false);
            client.requestFails(id -> new Frame.Commit(id, 1, List.of()), ErrorCode.ILLEGAL_STATE);
        }
    }

    @Test
    void orderlyCloseIsAnsweredAndReleasesEverything() throws Exception {
        String queue = newQueue();
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.sendMessage(1, TestMessages.text(queue, "m1"));
            client.createConsumer(1, 1, queue, null, 10);
            client.expect(Frame.Deliver.class);
            client.request(Frame.Close::new);
        }
        try (FrameClient other = FrameClient.connect(server)) {
            other.createSession(1, false);
            other.createConsumer(1, 1, queue, null, 10);
            Frame.Deliver d = other.expect(Frame.Deliver.class);
            assertEquals(1, d.deliveryCount(), "a prefetched message returned by an orderly CLOSE is not redelivered");
        }
    }

    @Test
    void consumerIdsAreTheConnectionsAndCloseWithTheirSession() throws Exception {
        String queue = newQueue();
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.createSession(2, false);
            client.createConsumer(1, 5, queue, null, 0);
            client.sendMessage(2, TestMessages.text(queue, "m1"));
            Frame.Error taken = client.requestFails(id -> new Frame.CreateConsumer(id, 2, 5, WireDestination.queue(queue),
                    null, 0, Frame.CONSUMER_BROWSER, null), ErrorCode.ILLEGAL_STATE);
            assertEquals("Consumer id 5 is already in use on this connection.", taken.message());
            client.request(id -> new Frame.CreateConsumer(id, 2, 6, WireDestination.queue(queue), null, 0,
                    Frame.CONSUMER_BROWSER, null));
            client.request(id -> new Frame.CloseSession(id, 1));
            client.send(new Frame.Credit(5, 1)); // consumer 5 closed with session 1: nothing is delivered to it
            client.expectNothingMore();
            client.send(new Frame.Credit(6, 1)); // the browser of session 2 shows the message
            Frame.Deliver shown = client.expect(Frame.Deliver.class);
            assertEquals(6, shown.consumerId());
            assertEquals(0, shown.deliveryId());
            client.createConsumer(2, 5, queue, null, 1); // id 5 is free again, now in session 2
            Frame.Deliver d = client.expect(Frame.Deliver.class);
            assertEquals(5, d.consumerId());
            assertEquals("m1", TestMessages.body(d.message()));
            client.request(id -> new Frame.CloseSession(id, 2));
        }
        assertEquals(0, server.queueManager().queue(queue).consumerCount());
    }

    private static List<String> bodies(List<Frame.Deliver> deliveries) {
        List<String> bodies = new ArrayList<>();
        for (Frame.Deliver d : deliveries) {
            bodies.add(TestMessages.body(d.message()));
        }
        return bodies;
    }
}
