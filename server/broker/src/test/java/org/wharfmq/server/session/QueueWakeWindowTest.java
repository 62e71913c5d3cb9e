package org.wharfmq.server.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.MemoryBudget;
import org.wharfmq.server.queue.MemoryLimit;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.queue.QueuedMessage;
import org.wharfmq.server.store.InMemoryMessageStore;

import java.time.InstantSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A producer window held back by a subscription over its budget with the policy block, on an event loop the test runs
 * by hand (EmbeddedChannel), so that the window handles a SEND between the queue's wake-up and its own: the SEND of the
 * credit the producer still had, which finds the queue over its budget again. What the window held when it began to
 * wait is returned; that SEND's bytes wait for the queue again. Returned with the rest, they let the producer send a
 * whole window on top of that SEND: two windows past the queue's budget (as BudgetWakeOrderTest for the server's).
 */
class QueueWakeWindowTest {

    private static final int WINDOW = 100;
    /** What a producer sends before its credit is due back: more than half the window. */
    private static final int SENT = 60;

    private final EmbeddedChannel connection = new EmbeddedChannel();
    private final QueueManager queues = new QueueManager(ServerConfig.defaults(), new InMemoryMessageStore(),
            InstantSource.system());
    private final MemoryBudget budget = MemoryBudget.of(ServerConfig.builder().maxMemoryBytes(1L << 30).build());
    private final LocalQueue subscription = LocalQueue.subscription("SYSTEM.SUB.N1", 1000, queues.persistence(), false,
            queues.deadLetters(), InstantSource.system(), new MemoryLimit(1, MemoryPolicy.BLOCK, "subscription",
                    "test", MemoryLimit.PageLimit.NONE), budget, null);

    @AfterEach
    void close() {
        subscription.clear();
        queues.close();
        connection.finishAndReleaseAll();
    }

    @Test
    void aWindowWokenByAQueueReturnsWhatItHeldWhenTheRoomCameBackNotWhatItWasSentSince() {
        ProducerWindow window = new ProducerWindow(1, new Replies(connection), connection.eventLoop(), WINDOW,
                1L << 20, budget);
        window.open();
        assertEquals(WINDOW, ((Frame.ProducerCredit) connection.readOutbound()).bytes(), "the first window");
        put(); // over its budget of one byte
        window.handled(SENT, subscription, false); // held back; the producer has WINDOW - SENT left
        assertNull(connection.readOutbound(), "held back while the queue is over its budget");

        subscription.clear(); // room: the window is woken, on its event loop
        put(); // which first handles a SEND of the credit the producer had left, over the budget again
        assertTrue(subscription.blocksProducers());
        window.handled(SENT, subscription, false); // (the last message of a window may take it below zero)
        BudgetWakeOrderTest.returnsOnlyWhatItHeld(connection, SENT);

        subscription.clear(); // room again: its turn now
        connection.runPendingTasks();
        assertEquals(SENT, ((Frame.ProducerCredit) connection.readOutbound()).bytes(), "returned at its turn");
    }

    /** One message on the subscription, as a publication to it puts it. */
    private void put() {
        ByteBuf content = TestMessages.encode(TestMessages.text(subscription.name(), "x"));
        QueuedMessage m = new QueuedMessage(subscription, content, MessageHeaders.read(content));
        assertEquals(LocalQueue.Admission.RESERVED, subscription.reserveCopy(m));
        subscription.offer(m);
    }
}
