package org.wharfmq.server.session;

import io.netty.util.concurrent.SingleThreadEventExecutor;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.HostCapture;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.QueueDefinition;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A queue deleted as the queue manager's own code opens a consumer on it ({@link InProcessTakes#consume}, as a sender
 * channel does on its transmission queue): the consume is refused, naming the queue, rather than handing back a
 * consumer of a deleted queue. The order is the loop's own, not a timing: the consumer opens in the loop's task, the
 * queue is deleted in the next one, before the task in which consume looks the consumer up.
 */
class InProcessTakesDeletedQueueTest {

    @Test
    void aQueueDeletedAsItsConsumerOpensRefusesTheConsumeNamingTheQueue() throws Exception {
        HostCapture capture = new HostCapture();
        try (TestServer test = TestServer.start(b -> b, config -> WharfServer.start(config, capture))) {
            test.server().queueManager().defineQueue(QueueDefinition.named("GOING"));
            try (InProcessTakes takes = capture.host().takeMessages()) {
                SingleThreadEventExecutor loop = (SingleThreadEventExecutor) takes.loop();
                CountDownLatch held = new CountDownLatch(1);
                CountDownLatch holding = new CountDownLatch(1);
                loop.execute(() -> {
                    holding.countDown();
                    try {
                        held.await(); // the loop runs nothing until the consume's open is queued behind this
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                holding.await(); // the holding task runs: it is no longer among the loop's pending tasks
                CompletableFuture<Throwable> consumed = new CompletableFuture<>();
                Thread consumer = new Thread(() -> {
                    try {
                        takes.consume("GOING", 10, 60_000);
                        consumed.complete(null);
                    } catch (Throwable t) {
                        consumed.complete(t);
                    }
                });
                consumer.start();
                while (loop.pendingTasks() == 0) { // the open, queued by the consuming thread: a state, not a time
                    Thread.onSpinWait();
                }
                // runs after the open (the consumer attached and registered) and before consume's look-up, which is
                // queued only once the open has answered
                loop.execute(() -> test.server().queueManager().deleteQueue("GOING", true));
                held.countDown();
                consumer.join();
                WharfException refused = assertInstanceOf(WharfException.class, consumed.get());
                assertEquals(ErrorCode.UNKNOWN_DESTINATION, refused.code());
                assertTrue(refused.getMessage().contains("queue 'GOING'") && refused.getMessage().contains("deleted"),
                        refused.getMessage());
            }
        }
    }
}
