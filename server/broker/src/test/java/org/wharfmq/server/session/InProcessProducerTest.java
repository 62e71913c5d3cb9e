package org.wharfmq.server.session;

import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.HostCapture;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.security.Identity;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A producer inside the queue manager, driven by a thread of its own ({@link InProcessProducer}: a flow's output): a
 * put is on its queue when it returns (a persistent one once the journal has it, which reaches the owner as a task of
 * its), a refusal is thrown by the put it refuses, and producer flow control holds it as a client's send is held: a
 * put with no credit left waits, having asked its caller to settle first, until the queue over its budget drains, or
 * until its sender stops.
 */
class InProcessProducerTest {

    private static final InProcessProducer.Waiting NEVER_WAITS = new InProcessProducer.Waiting() {
        @Override
        public void beforeWait() {
            throw new AssertionError("the put waited for credit");
        }

        @Override
        public boolean stopped() {
            return false;
        }
    };

    @Test
    void aPutIsOnItsQueueWhenItReturnsAndARefusalIsThrownByThePutItRefuses() throws Exception {
        HostCapture capture = new HostCapture();
        try (TestServer test = TestServer.start(b -> b.maxMessageLength(16 * 1024),
                config -> WharfServer.start(config, capture))) {
            QueueManager queues = test.server().queueManager();
            owned(capture, producer -> {
                producer.put(TestMessages.encode(TestMessages.text("PUT.Q", "one")), NEVER_WAITS);
                assertEquals(1, queues.queue("PUT.Q").depth(), "on its queue as the put returns");
                WireMessage persistent = TestMessages.text("PUT.Q", "two");
                persistent.persistent = true;
                producer.put(TestMessages.encode(persistent), NEVER_WAITS); // returns once the journal has it
                assertEquals(2, queues.queue("PUT.Q").depth(), "a persistent one once stored");
                WharfException refused = assertThrows(WharfException.class, () -> producer.put(
                        TestMessages.encode(TestMessages.text("PUT.Q", "x".repeat(20_000))), NEVER_WAITS));
                assertEquals(ErrorCode.MESSAGE_TOO_LARGE, refused.code(), refused.getMessage());
                assertEquals(2, queues.queue("PUT.Q").depth(), "nothing of the refused put");
            });
        }
    }

    /**
     * A queue with a 16 KiB budget and the policy block, a 16 KiB producer window, messages of 4,000 bytes: the window
     * is spent at the seventh put, while the queue is over its budget. That put waits, having asked its caller to settle
     * first; once a consumer takes the queue's messages, the window comes back and every put is made.
     */
    @Test
    void aPutWaitsForCreditWhileItsQueueIsOverItsBudgetAndGoesOnOnceTheQueueDrains() throws Exception {
        HostCapture capture = new HostCapture();
        try (TestServer test = TestServer.start(b -> b.producerWindowBytes(16 * 1024)
                .queue("BLOCKED", 16 * 1024, MemoryPolicy.BLOCK), config -> WharfServer.start(config, capture))) {
            int messages = 12;
            CountDownLatch waits = new CountDownLatch(1);
            CompletableFuture<Throwable> putting = putToBlocked(capture, messages, waits, () -> false);
            assertTrue(waits.await(60, TimeUnit.SECONDS), "a put waits for credit: " + putting);
            long depth = test.server().queueManager().queue("BLOCKED").depth();
            assertTrue(depth < messages, "the put that waits is not on the queue: " + depth);
            assertFalse(putting.isDone(), "the puts wait for the queue to drain");
            try (InProcessTakes takes = capture.host().takeMessages()) {
                takes.consume("BLOCKED", messages, 60_000);
                for (int i = 0; i < messages; i++) {
                    InProcessTakes.Taken taken = takes.next(60_000);
                    assertNotNull(taken, "message " + i + " of " + messages + "; the puts: " + putting);
                    assertTrue(TestMessages.body(taken.message()).startsWith(i + "x"));
                    taken.message().release();
                    takes.acknowledge(taken.deliveryId(), 1, 0);
                }
            }
            assertEquals(null, putting.get(60, TimeUnit.SECONDS), "every put was made");
        }
    }

    @Test
    void aPutWaitingForCreditGivesUpOnceItsSenderStops() throws Exception {
        HostCapture capture = new HostCapture();
        try (TestServer test = TestServer.start(b -> b.producerWindowBytes(16 * 1024)
                .queue("BLOCKED", 16 * 1024, MemoryPolicy.BLOCK), config -> WharfServer.start(config, capture))) {
            AtomicBoolean stopped = new AtomicBoolean();
            CountDownLatch waits = new CountDownLatch(1);
            CompletableFuture<Throwable> putting = putToBlocked(capture, 12, waits, stopped::get);
            assertTrue(waits.await(60, TimeUnit.SECONDS), "a put waits for credit");
            long depth = test.server().queueManager().queue("BLOCKED").depth();
            stopped.set(true);
            WharfException gaveUp = assertInstanceOf(WharfException.class, putting.get(60, TimeUnit.SECONDS));
            assertEquals(ErrorCode.ILLEGAL_STATE, gaveUp.code());
            assertTrue(gaveUp.getMessage().contains("producer credit"), gaveUp.getMessage());
            assertEquals(depth, test.server().queueManager().queue("BLOCKED").depth(), "nothing of the put given up");
        }
    }

    /**
     * Puts {@code messages} messages of 4,000 bytes (the first characters of each its number) to queue BLOCKED from a
     * thread of their own, which counts {@code waits} down as a put is about to wait for credit, and stops waiting
     * once {@code stopped}.
     */
    private static CompletableFuture<Throwable> putToBlocked(HostCapture capture, int messages, CountDownLatch waits,
                                                             BooleanSupplier stopped) {
        InProcessProducer.Waiting waiting = new InProcessProducer.Waiting() {
            @Override
            public void beforeWait() {
                waits.countDown();
            }

            @Override
            public boolean stopped() {
                return stopped.getAsBoolean();
            }
        };
        return ownedAsync(capture, producer -> {
            for (int i = 0; i < messages; i++) {
                producer.put(TestMessages.encode(TestMessages.text("BLOCKED", i + "x".repeat(4_000))), waiting);
            }
        });
    }

    /** A piece of work with a producer. */
    private interface Work {
        void with(InProcessProducer producer) throws Exception;
    }

    /** Runs {@code work} with a producer owned by this thread, closed after it. */
    private static void owned(HostCapture capture, Work work) throws Exception {
        try (InProcessProducer producer = capture.host().putMessages(Identity.SERVER, "test")) {
            work.with(producer);
        }
    }

    /** Runs {@code work} on a thread of its own, which owns the producer; completes with what it threw, or null. */
    private static CompletableFuture<Throwable> ownedAsync(HostCapture capture, Work work) {
        CompletableFuture<Throwable> done = new CompletableFuture<>();
        Consumer<Throwable> end = done::complete;
        Thread owner = new Thread(() -> {
            try {
                owned(capture, work);
                end.accept(null);
            } catch (Throwable t) {
                end.accept(t);
            }
        }, "in-process producer");
        owner.setDaemon(true);
        owner.start();
        return done;
    }
}
