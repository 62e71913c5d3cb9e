package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.config.MemoryPolicy;

import java.time.InstantSource;
import java.util.concurrent.CountDownLatch;

/** What the paging tests share: a queue named PAGED with room for three messages in memory, and the paging thread's barrier. */
final class PagingQueues {

    private PagingQueues() {
    }

    /**
     * Queue PAGED of {@code queues}, paging to {@code pager}, whose memory budget holds three messages of the length
     * of {@code sizing}'s (every message of the test has that length), with the disk budget {@code disk}.
     */
    static LocalQueue threeInMemory(QueueManager queues, Pager pager, String sizingBody, String sizingKind,
                                    MemoryLimit.PageLimit disk) {
        LocalQueue sizing = new LocalQueue("PAGED", 1, false, queues.persistence(), queues.deadLetters());
        QueuedMessage m = message(sizing, sizingBody, sizingKind, null);
        long oneMessage = m.memoryBytes();
        m.release();
        return LocalQueue.defined("PAGED", 1_000_000, false, queues.persistence(), queues.deadLetters(),
                InstantSource.system(), new MemoryLimit(3 * oneMessage + 1, MemoryPolicy.PAGE, "queue 'PAGED'", "test",
                        disk), MemoryBudget.unlimited(), pager);
    }

    /** A non-persistent text message for {@code target}, with property "kind" unless null. */
    static QueuedMessage message(LocalQueue target, String body, String kind, String correlationId) {
        return message(target, body, kind, correlationId, 0);
    }

    /** As {@link #message(LocalQueue, String, String, String)}, with the JMSTimestamp {@code timestamp} (0: none). */
    static QueuedMessage message(LocalQueue target, String body, String kind, String correlationId, long timestamp) {
        WireMessage wire = TestMessages.text(target.name(), body);
        wire.persistent = false;
        wire.timestamp = timestamp;
        wire.correlationId = correlationId;
        if (kind != null) {
            wire.properties.put("kind", kind);
        }
        ByteBuf content = TestMessages.encode(wire);
        return new QueuedMessage(target, content, MessageHeaders.read(content));
    }

    /**
     * Waits until the paging thread has run everything queued so far: the turns the queue asked for, each of which
     * writes all there is to write and lets the scans read up to a turn's bytes.
     */
    static void settle(Pager pager) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        pager.execute(done::countDown);
        done.await();
    }
}
