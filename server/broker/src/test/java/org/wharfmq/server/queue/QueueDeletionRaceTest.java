package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.server.TestClock;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.InMemoryMessageStore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The deletion of an unused queue created by use, interleaved by hand with a client that looked the queue up just
 * before it: each step a sender or consumer takes (lookup, then reservation or attachment) against the deletion in
 * between, as {@link QueueManager}'s class comment argues. The real server's sessions race it in
 * {@code QueuesCreatedByUseTest}.
 */
class QueueDeletionRaceTest {

    private static final long DELAY = 1_000;

    private final TestClock clock = new TestClock();
    private final QueueManager queues = new QueueManager(ServerConfig.builder().autoDeleteDelayMillis(DELAY).build(),
            new InMemoryMessageStore(), clock);

    @AfterEach
    void release() {
        queues.close();
    }

    @Test
    void aSendWhoseQueueIsDeletedBetweenLookupAndReservationGoesToTheNewQueue() {
        LocalQueue looked = queues.queue("Q"); // the sender's lookup...
        clock.advance(DELAY);
        assertEquals(1, queues.deleteUnusedQueues()); // ...the deletion...
        QueuedMessage late = message(looked);
        assertFalse(looked.reserve(late), "...and the reservation: the deleted queue takes nothing");
        late.release();

        LocalQueue successor = queues.queue("Q"); // what the sender does then: look the name up again
        assertNotSame(looked, successor);
        QueuedMessage message = message(successor);
        assertTrue(successor.reserve(message));
        successor.offer(message);
        assertEquals(1, queues.depth("Q"), "the message is on the queue the name now names");
    }

    @Test
    void aReservationBeforeTheDeletionKeepsTheQueue() {
        LocalQueue looked = queues.queue("Q");
        clock.advance(DELAY);
        QueuedMessage message = message(looked);
        assertTrue(looked.reserve(message));
        assertEquals(0, queues.deleteUnusedQueues(), "a reserved place is a use, even before the offer");
        looked.offer(message);
        assertSame(looked, queues.queue("Q"));
        assertEquals(1, queues.depth("Q"));
    }

    @Test
    void aConsumerWhoseQueueIsDeletedBetweenLookupAndAttachmentAttachesToTheNewQueue() {
        LocalQueue looked = queues.queue("Q");
        clock.advance(DELAY);
        assertEquals(1, queues.deleteUnusedQueues());
        assertFalse(looked.attach(), "the deleted queue takes no consumer");

        LocalQueue attached = queues.attach(WireDestination.queue("Q"), QueueCreator.ANYONE); // looks up again, as every consumer does
        assertNotSame(looked, attached);
        assertSame(attached, queues.queue("Q"));
        clock.advance(10 * DELAY);
        assertEquals(0, queues.deleteUnusedQueues(), "a queue with a consumer is in use");

        attached.detach(); // unused from now
        clock.advance(DELAY - 1);
        assertEquals(0, queues.deleteUnusedQueues());
        clock.advance(1);
        assertEquals(1, queues.deleteUnusedQueues());
        assertFalse(queues.exists("Q"));
    }

    private static QueuedMessage message(LocalQueue queue) {
        ByteBuf content = TestMessages.encode(TestMessages.text(queue.name(), "m"));
        return new QueuedMessage(queue, content, MessageHeaders.read(content));
    }
}
