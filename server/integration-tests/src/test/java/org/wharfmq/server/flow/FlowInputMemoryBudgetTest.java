package org.wharfmq.server.flow;

import org.junit.jupiter.api.Test;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.queue.MemoryBudget;
import org.wharfmq.server.queue.QueueManager;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntPredicate;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Large messages flooding a flow's non-transactional input past the server's memory budget still pass the flow: what
 * its reader has received and holds must not keep the budget its own sends wait for (the default policy, BLOCK: a
 * send's producer credit is held back while the budget is spent). An input taken inside the queue manager that settled
 * what it received only at its next receive, or by count, held the budget and its flow waited for itself for good
 * (session 32, performance-log.md: F-WRITE 4 MB stopped after 128 messages of a 512 MiB budget; the first test here
 * stopped at message 24); the consumer of the flow's in-VM connection passes them, its AUTO_ACKNOWLEDGE going out ahead
 * of the flow's next send. Nor must what the reader was handed ahead and has not yet received keep it: a reader handed
 * its whole credit of large messages held the budget by them alone while its send waited for it (session 34: the
 * case with the output queue at its own budget hung one run in about thirty; InProcessTakesHeldBytesTest).
 */
class FlowInputMemoryBudgetTest {

    private static final int MESSAGES = 48;
    private static final int BYTES = 512 * 1024;
    private static final long BUDGET = 8L << 20;

    @Test
    void largeNonPersistentMessagesPassAFlowWhoseInputTheyWouldFillTheBudgetWith() throws Exception {
        flood(b -> b, TransactionMode.NO, i -> false);
    }

    @Test
    void largePersistentMessagesPassANonTransactionalFlowWhoseInputTheyWouldFillTheBudgetWith() throws Exception {
        flood(b -> b, TransactionMode.NO, i -> true);
    }

    /**
     * The flow's output queue has a budget of its own, smaller than the server's: the flow's sends wait for it as well,
     * and once it has room again, for the server's, which what the flow received must not be holding.
     */
    @Test
    void largeMessagesPassAFlowWhoseOutputQueueIsAtItsOwnBudget() throws Exception {
        flood(b -> b.queue("BUDGET.OUT", 2L << 20, MemoryPolicy.BLOCK), TransactionMode.NO, i -> false);
    }

    /**
     * Sends {@value #MESSAGES} messages of {@value #BYTES} bytes (persistent where {@code persistent} says) to a flow
     * in mode {@code mode} on a server with an 8 MiB budget, and receives them all from its output.
     */
    private static void flood(UnaryOperator<ServerConfig.Builder> configure, TransactionMode mode,
                              IntPredicate persistent) throws Exception {
        FlowHost[] flowHost = new FlowHost[1];
        try (TestServer test = TestServer.start(b -> configure.apply(b.maxMemoryBytes(BUDGET)), config -> {
            flowHost[0] = new FlowHost(FlowHostSettings.defaults());
            return WharfServer.builder(config).plugins(flowHost[0]).start();
        })) {
            flowHost[0].deploy(() -> FlowDefinition.builder("BUDGET")
                    .node("in", InputNode.queue("BUDGET.IN").transactionMode(mode))
                    .node("out", OutputNode.queue("BUDGET.OUT"))
                    .wire("in", "out", "out")
                    .build(), 1);
            WharfConnectionFactory factory = new WharfConnectionFactory(test.server().vmUrl());
            try (Connection sending = factory.createConnection(); Connection receiving = factory.createConnection()) {
                receiving.start();
                Session in = receiving.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer out = in.createConsumer(in.createQueue("BUDGET.OUT"));
                // the sends wait for the budget too: they go on their own thread while this one receives
                CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
                    try {
                        Session session = sending.createSession(false, Session.AUTO_ACKNOWLEDGE);
                        MessageProducer producer = session.createProducer(session.createQueue("BUDGET.IN"));
                        for (int i = 0; i < MESSAGES; i++) {
                            BytesMessage message = session.createBytesMessage();
                            byte[] body = new byte[BYTES];
                            body[0] = (byte) i;
                            message.writeBytes(body);
                            producer.send(message, persistent.test(i) ? DeliveryMode.PERSISTENT
                                    : DeliveryMode.NON_PERSISTENT, 4, 0);
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                QueueManager queues = test.server().queueManager();
                for (int i = 0; i < MESSAGES; i++) {
                    BytesMessage received = (BytesMessage) out.receive(60_000);
                    int at = i;
                    assertNotNull(received, () -> "message " + at + " of " + MESSAGES + " (" + (MESSAGES * BYTES >> 20)
                            + " MiB through an 8 MiB budget) out of the flow; "
                            + counters(queues, "BUDGET.IN", "BUDGET.OUT"));
                    assertEquals(BYTES, received.getBodyLength());
                }
                sent.get();
            }
        }
    }

    /** The budget's counters and the share of them of the queues {@code names}, for a flow that stopped. */
    static String counters(QueueManager queues, String... names) {
        MemoryBudget budget = queues.memoryBudget();
        StringBuilder s = new StringBuilder("the server's budget holds " + budget.usedBytes() + " of "
                + budget.maxBytes() + " bytes");
        for (String name : names) {
            if (queues.exists(name)) {
                var q = queues.queue(name);
                s.append("; ").append(name).append(": depth ").append(q.depth()).append(", ").append(q.heldBytes())
                        .append(" bytes, ").append(q.consumerCount()).append(" consumer(s), ")
                        .append(q.producersHeldBack()).append(" producer session(s) held back");
            }
        }
        return s.toString();
    }
}
