package org.wharfmq.server.flow;

import org.junit.jupiter.api.Test;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Large messages flooding a flow's non-transactional input past the server's memory budget still pass the flow: what
 * its reader has received and holds must not keep the budget its own sends wait for (the default policy, BLOCK). An
 * input taken inside the queue manager that settled by count held the whole budget and its flow waited for itself for
 * good (session 32, performance-log.md: F-WRITE 4 MB stopped after 128 messages of a 512 MiB budget; this test stopped
 * at message 24); the consumer of the flow's in-VM connection passes it.
 */
class FlowInputMemoryBudgetTest {

    private static final int MESSAGES = 48;
    private static final int BYTES = 512 * 1024;

    @Test
    void largeNonPersistentMessagesPassAFlowWhoseInputTheyWouldFillTheBudgetWith() throws Exception {
        FlowHost[] flowHost = new FlowHost[1];
        try (TestServer test = TestServer.start(b -> b.maxMemoryBytes(8L << 20), config -> {
            flowHost[0] = new FlowHost(FlowHostSettings.defaults());
            return WharfServer.builder(config).plugins(flowHost[0]).start();
        })) {
            flowHost[0].deploy(() -> FlowDefinition.builder("BUDGET")
                    .node("in", InputNode.queue("BUDGET.IN").transactionMode(TransactionMode.NO))
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
                        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
                        for (int i = 0; i < MESSAGES; i++) {
                            BytesMessage message = session.createBytesMessage();
                            byte[] body = new byte[BYTES];
                            body[0] = (byte) i;
                            message.writeBytes(body);
                            producer.send(message);
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                for (int i = 0; i < MESSAGES; i++) {
                    BytesMessage received = (BytesMessage) out.receive(60_000);
                    assertNotNull(received, "message " + i + " of " + MESSAGES + " (" + (MESSAGES * BYTES >> 20)
                            + " MiB through an 8 MiB budget) out of the flow");
                    assertEquals(BYTES, received.getBodyLength());
                }
                sent.get();
            }
        }
    }
}
