package org.wharfmq.server.flow;

import org.junit.jupiter.api.Test;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.HostCapture;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.session.InProcessTakes;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A taker inside the queue manager that bounds what it holds ({@link InProcessTakes#consume}'s {@code maxHeldBytes},
 * as a flow's non-transactional input does) is handed no more once it holds that many bytes it has not consumed, one
 * message past them at most, whatever its credit; each message it consumes lets the next one come. What a taker holds
 * counts against the server's memory budget: a flow's reader handed its whole credit of large messages held the budget
 * its own sends waited for (FlowInputMemoryBudgetTest hung in CI, one run in about thirty: the input's 16 messages of
 * 512 KiB, all handed to the reader, held 8,396,304 bytes of an 8 MiB budget while the reader's send waited for it).
 */
class InProcessTakesHeldBytesTest {

    private static final int BYTES = 100_000;
    private static final long MAX_HELD = 256 * 1024;

    @Test
    void aTakerBoundedByBytesIsHandedNoMoreThanItMayHold() throws Exception {
        HostCapture capture = new HostCapture();
        try (TestServer test = TestServer.start(b -> b, config -> WharfServer.start(config, capture))) {
            test.server().queueManager().defineQueue(QueueDefinition.named("HELD"));
            try (InProcessTakes takes = capture.host().takeMessages();
                 Connection connection = new WharfConnectionFactory(test.server().vmUrl()).createConnection()) {
                takes.consume("HELD", null, 1_000, MAX_HELD, 60_000);
                Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
                MessageProducer producer = session.createProducer(session.createQueue("HELD"));
                Random random = new Random(7);
                for (int i = 0; i < 10; i++) {
                    BytesMessage message = session.createBytesMessage();
                    byte[] body = new byte[BYTES];
                    random.nextBytes(body);
                    message.writeBytes(body);
                    producer.send(message, DeliveryMode.NON_PERSISTENT, 4, 0);
                }
                session.commit(); // answered once the messages are on the queue and handed over as they may be

                // 0, then about 100,000 and 200,000 bytes held are under the bound: three handed over, then none
                List<InProcessTakes.Taken> held = drain(takes);
                assertEquals(3, held.size(), "messages handed over to a taker that may hold " + MAX_HELD + " bytes");
                assertTrue(held.get(0).heldBytes() >= BYTES, "what the first message counts: " + held.get(0));
                assertEquals(10, test.server().queueManager().queue("HELD").depth());

                // consuming one lets one more come, as the settlement runs on the session's loop
                takes.consumed(held.get(0));
                takes.loop().submit(() -> { }).get(); // a barrier: the settlement was queued on the loop before it
                List<InProcessTakes.Taken> next = drain(takes);
                assertEquals(1, next.size(), "messages handed over once one of three was consumed");

                // consuming all it holds lets as many come again: the bytes held are what was not yet consumed
                for (InProcessTakes.Taken t : held.subList(1, 3)) {
                    takes.consumed(t);
                }
                takes.consumed(next.get(0));
                takes.loop().submit(() -> { }).get();
                List<InProcessTakes.Taken> after = drain(takes);
                assertEquals(3, after.size(), "messages handed over once all four held were consumed");
                assertEquals(6, test.server().queueManager().queue("HELD").depth(),
                        "the four consumed have left the queue");
                held.forEach(t -> t.message().release());
                next.forEach(t -> t.message().release());
                after.forEach(t -> t.message().release());
            }
        }
    }

    /**
     * What a taker consumes leaves its queue in batches ({@link InProcessTakes#consumed}): once a quarter of its credit
     * (or of its bytes bound) is consumed, or when it settles ({@link InProcessTakes#settle}, before its thread waits),
     * and not before: until then it counts on the queue as handed over.
     */
    @Test
    void whatATakerConsumesLeavesTheQueueWhenItsBatchFillsOrItSettles() throws Exception {
        HostCapture capture = new HostCapture();
        try (TestServer test = TestServer.start(b -> b, config -> WharfServer.start(config, capture))) {
            test.server().queueManager().defineQueue(QueueDefinition.named("BATCHED"));
            try (InProcessTakes takes = capture.host().takeMessages();
                 Connection connection = new WharfConnectionFactory(test.server().vmUrl()).createConnection()) {
                takes.consume("BATCHED", null, 8, MAX_HELD, 60_000); // batches of two: a quarter of its credit
                Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
                MessageProducer producer = session.createProducer(session.createQueue("BATCHED"));
                for (int i = 0; i < 5; i++) {
                    BytesMessage message = session.createBytesMessage();
                    message.writeBytes(new byte[1_000]);
                    producer.send(message, DeliveryMode.NON_PERSISTENT, 4, 0);
                }
                session.commit(); // answered once the messages are on the queue and handed over
                List<InProcessTakes.Taken> held = drain(takes);
                assertEquals(5, held.size());
                var queue = test.server().queueManager().queue("BATCHED");

                takes.consumed(held.get(0));
                takes.loop().submit(() -> { }).get(); // a barrier: a settlement queued before it has run
                assertEquals(5, queue.depth(), "one consumed message waits for its batch");
                takes.consumed(held.get(1));
                takes.loop().submit(() -> { }).get();
                assertEquals(3, queue.depth(), "a full batch of two has left the queue");
                takes.consumed(held.get(2));
                takes.settle();
                takes.loop().submit(() -> { }).get();
                assertEquals(2, queue.depth(), "what was consumed has left the queue once settled");
                held.forEach(t -> t.message().release());
            }
        }
    }

    /** What was handed over and waits for the taker, taken without waiting (the deliveries are made by then). */
    private static List<InProcessTakes.Taken> drain(InProcessTakes takes) {
        List<InProcessTakes.Taken> taken = new ArrayList<>();
        InProcessTakes.Taken t;
        while ((t = takes.poll(any -> true)) != null) {
            taken.add(t);
        }
        return taken;
    }
}
