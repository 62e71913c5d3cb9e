package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.QueueConfiguration;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.MemoryBudget;
import org.wharfmq.server.queue.QueueManager;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A queue whose policy is block, filled by a fast producer, never alone spends the server's memory budget: it holds at
 * most the server's share ({@link MemoryBudget#shareBytes}, docs/resilience.md "Policies"), so its consumer, which
 * sends what it takes on to a paging queue and settles in batches larger than its producer window (a transaction, or
 * CLIENT_ACKNOWLEDGE), gets the credit its sends need and drains it. When such a queue could hold the whole budget,
 * the server held every session's credit back while it was spent, its consumer's too: the consumer waited for credit
 * with its batch unsettled, the queue could not drain, and nothing moved again (session 36).
 */
@Timeout(120)
class BlockQueueForwardingTest {

    private static final long BUDGET = 1L << 20;
    private static final int WINDOW = 32 * 1024;
    private static final String BODY = "x".repeat(4000);
    /** What the consumer takes and sends on before it settles: about twice its producer window. */
    private static final int BATCH = 16;
    /** About 1.4 MB counted: more than the budget, so the producer is held back long before it has sent them all. */
    private static final int MESSAGES = 20 * BATCH;
    /** Policy block, no budget of its own. */
    private static final String NO_BUDGET = "FORWARD.BLOCK";
    /** Policy block, a budget of its own larger than the server's. */
    private static final String LARGE_BUDGET = "FORWARD.BLOCK.LARGE";

    /** A server for each test: what one that fails leaves behind spends the other's budget. */
    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.configured(c -> c
            .producerWindowBytes(WINDOW).maxMemoryBytes(BUDGET)
            .queue(QueueDefinition.named(NO_BUDGET).with(QueueConfiguration.POLICY, MemoryPolicy.BLOCK.toString())));

    @RegisterExtension
    static final WharfServerExtension LARGE = WharfServerExtension.configured(c -> c
            .producerWindowBytes(WINDOW).maxMemoryBytes(BUDGET)
            .queue(LARGE_BUDGET, 8 * BUDGET, MemoryPolicy.BLOCK));

    @RegisterExtension
    static final WharfServerExtension PRELOADED = WharfServerExtension.configured(c -> c
            .producerWindowBytes(WINDOW).maxMemoryBytes(BUDGET)
            .queue(QueueDefinition.named(NO_BUDGET).with(QueueConfiguration.POLICY, MemoryPolicy.BLOCK.toString())));

    /** Messages sent to the paging output queue before anything else: kept in memory, paging not being due yet. */
    private static final int PRELOAD = 4 * BATCH;

    @Test
    void aTransactedConsumerDrainsABlockQueueThatFilledWhatItMayOfTheServersBudget() throws Exception {
        forwardEverything(WHARF, NO_BUDGET, true, 0);
    }

    @Test
    void aConsumerAcknowledgingInBatchesDrainsABlockQueueWhoseOwnBudgetIsLargerThanTheServers() throws Exception {
        forwardEverything(LARGE, LARGE_BUDGET, false, 0);
    }

    /**
     * The paging output queue holds a quarter of the budget in memory (sent before paging was due), so the block queue
     * and it spend the server's budget between them: the forwarder's sends to the paging queue still get their credit
     * (they page), so it settles and the block queue drains. When the spent budget held back every session's credit,
     * this stopped for good at the forwarder's first batch (CI, session 36: the output queue had taken messages in
     * memory while the input queue's commits dipped the budget under the paging threshold).
     */
    @Test
    void aTransactedConsumerDrainsABlockQueueWhileItAndAPagingQueueSpendTheBudgetBetweenThem() throws Exception {
        forwardEverything(PRELOADED, NO_BUDGET, true, PRELOAD);
    }

    /**
     * Fills {@code in} until its producer is held back, then forwards every message to a paging queue in batches of
     * {@value #BATCH} (committed, or acknowledged), and receives them all from there in order.
     */
    private static void forwardEverything(WharfServerExtension server, String in, boolean transacted, int preload)
            throws Exception {
        QueueManager queues = server.server().queueManager();
        MemoryBudget budget = queues.memoryBudget();
        LocalQueue source = queues.queue(in);
        String out = server.queueName("out");
        if (preload > 0) {
            produce(server.connect(Transport.TCP), out, PRELOAD_FIRST, preload).get(Receive.EXPECTED_MS,
                    TimeUnit.MILLISECONDS);
            assertEquals(0, queues.queue(out).paged(), "the preload is in memory");
        }
        CompletableFuture<Void> producing = produce(server.connect(Transport.TCP), in, 0, MESSAGES);
        ProducerFlowControlTest.awaitTrue(() -> source.producersHeldBack() > 0 || budget.spent(),
                "the producer to " + in + " is held back");
        long filled = source.heldBytes();
        assertFalse(producing.isDone(), "the producer cannot have sent everything");

        CompletableFuture<Void> forwarding = forward(server.connect(Transport.TCP), in, out, transacted);
        awaitProgress(() -> source.snapshot().dequeued(), () -> state(queues, in, out));
        forwarding.get(10, TimeUnit.SECONDS);
        producing.get(10, TimeUnit.SECONDS);
        long bound = budget.shareBytes() + WINDOW + 2L * BODY.length();
        assertTrue(filled <= bound, () -> in + " held " + filled + " bytes of the server's " + BUDGET + " when its"
                + " producer was held back: more than its share and a window, " + bound);

        Session receiving = server.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = receiving.createConsumer(receiving.createQueue(out));
        List<Integer> got = new ArrayList<>();
        for (int i = 0; i < preload + MESSAGES; i++) {
            got.add(number(Receive.next(consumer)));
        }
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < preload; i++) {
            all.add(PRELOAD_FIRST + i);
        }
        for (int i = 0; i < MESSAGES; i++) {
            all.add(i);
        }
        assertEquals(all, got, "every message forwarded, in order");
    }

    /** The number of the first preloaded message. */
    private static final int PRELOAD_FIRST = 100_000;

    /** Sends {@code count} non-persistent messages numbered from {@code first} to {@code queue} from a thread of their own. */
    private static CompletableFuture<Void> produce(Connection connection, String queue, int first, int count) {
        return onThread("fast-producer", () -> {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue(queue));
            producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
            for (int i = first; i < first + count; i++) {
                producer.send(session.createTextMessage(i + ":" + BODY));
            }
            Send.barrier(session);
        });
    }

    /**
     * Takes {@link #MESSAGES} from {@code in} and sends each to {@code out} (non-persistent, policy page), settling
     * every {@value #BATCH}: by a commit, or by acknowledging in CLIENT_ACKNOWLEDGE mode.
     */
    private static CompletableFuture<Void> forward(Connection connection, String in, String out, boolean transacted) {
        return onThread("forwarder", () -> {
            Session session = connection.createSession(transacted,
                    transacted ? Session.SESSION_TRANSACTED : Session.CLIENT_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(in));
            MessageProducer producer = session.createProducer(session.createQueue(out));
            producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
            for (int i = 1; i <= MESSAGES; i++) {
                Message m = consumer.receive(Receive.EXPECTED_MS);
                assertNotNull(m, "message " + i + " never came to the forwarder");
                producer.send(m);
                if (i % BATCH == 0) {
                    if (transacted) {
                        session.commit();
                    } else {
                        m.acknowledge();
                    }
                }
            }
            Send.barrier(session);
        });
    }

    /** What a thread that may block for good (the defect) runs. */
    @FunctionalInterface
    private interface Work {
        void run() throws Exception;
    }

    private static CompletableFuture<Void> onThread(String name, Work work) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                work.run();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
        return done;
    }

    /**
     * Waits until the server has had all {@link #MESSAGES} settled by the forwarder ({@code forwarded}: messages
     * removed from the input queue for good, at a commit or an acknowledgement), failing once it has seen none more
     * for {@link Receive#EXPECTED_MS}: the forwarder is stuck, not slow.
     */
    private static void awaitProgress(LongSupplier forwarded, Supplier<String> state) {
        long seen = -1;
        long deadline = 0;
        for (long now = forwarded.getAsLong(); now < MESSAGES; now = forwarded.getAsLong()) {
            if (now != seen) {
                seen = now;
                deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Receive.EXPECTED_MS);
            }
            long at = now;
            assertTrue(System.nanoTime() < deadline, () -> "the forwarder stopped after " + at + " of " + MESSAGES
                    + " messages: " + state.get());
            Thread.onSpinWait();
        }
    }

    private static String state(QueueManager queues, String in, String out) {
        MemoryBudget budget = queues.memoryBudget();
        StringBuilder s = new StringBuilder("the server's budget holds " + budget.usedBytes() + " of "
                + budget.maxBytes() + " bytes (spent: " + budget.spent() + ")");
        for (String name : List.of(in, out)) {
            if (queues.exists(name)) {
                LocalQueue q = queues.queue(name);
                s.append("; ").append(name).append(": depth ").append(q.depth()).append(", ").append(q.heldBytes())
                        .append(" bytes held, ").append(q.producersHeldBack()).append(" producer session(s) held back");
            }
        }
        return s.toString();
    }

    private static int number(Message m) throws JMSException {
        String text = ((TextMessage) m).getText();
        return Integer.parseInt(text.substring(0, text.indexOf(':')));
    }
}
