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
import org.wharfmq.server.queue.QueueManager;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.QueueBrowser;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flow's non-transactional reader taken inside the queue manager settles what it receives in batches
 * ({@link InProcessConsumer}): a batch holds the server's memory budget until it is settled, so it must be settled
 * before the reader's thread waits for anything that budget holds back, and it must settle what was received, no more
 * and no less.
 */
class FlowInputBatchSettlementTest {

    /** A message's body: seven of them are under a batch's 64 KiB (as the budgets count them), five over the budget. */
    private static final int BYTES = 8_000;
    private static final int INPUTS = 6;
    private static final long BUDGET = 24 * 1024;

    /**
     * The reader's sends wait for producer credit, which the server holds back while its budget is spent; here the
     * budget is spent by nothing but what the reader received and has not settled yet (under its batch's bounds), so
     * the reader must settle before its send waits, or wait for itself for good. Six messages of 8,000 bytes wait on
     * the input (a queue that blocks rather than pages) before the flow starts, over a 24 KiB budget; the flow sends
     * two copies of each, and its window of 64 KiB runs out at the fifth input, while the budget is spent.
     */
    @Test
    void aReaderWhoseSendWaitsForTheBudgetThatItsUnsettledInputHoldsSettlesItFirst() throws Exception {
        FlowHost[] flowHost = new FlowHost[1];
        UnaryOperator<ServerConfig.Builder> configure = b -> b.maxMemoryBytes(BUDGET).producerWindowBytes(64 * 1024)
                .queue("BATCH.IN", 1L << 20, MemoryPolicy.BLOCK);
        try (TestServer test = TestServer.start(configure, config -> {
            flowHost[0] = new FlowHost(FlowHostSettings.defaults());
            return WharfServer.builder(config).plugins(flowHost[0]).start();
        })) {
            QueueManager queues = test.server().queueManager();
            WharfConnectionFactory factory = new WharfConnectionFactory(test.server().vmUrl());
            try (Connection connection = factory.createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageProducer producer = session.createProducer(session.createQueue("BATCH.IN"));
                for (int i = 0; i < INPUTS; i++) {
                    BytesMessage message = session.createBytesMessage();
                    byte[] body = new byte[BYTES];
                    body[0] = (byte) i;
                    message.writeBytes(body);
                    producer.send(message, DeliveryMode.NON_PERSISTENT, 4, 0);
                }
                // the server has them when a request made after them is answered: a barrier, not a wait
                connection.createSession(true, Session.SESSION_TRANSACTED).close();
                assertEquals(INPUTS, queues.queue("BATCH.IN").depth());
                assertTrue(queues.memoryBudget().spent(), "the input alone spends the budget: "
                        + FlowInputMemoryBudgetTest.counters(queues, "BATCH.IN", "BATCH.OUT"));

                MessageConsumer out = session.createConsumer(session.createQueue("BATCH.OUT"));
                flowHost[0].deploy(() -> FlowDefinition.builder("BATCH")
                        .node("in", InputNode.queue("BATCH.IN").transactionMode(TransactionMode.NO))
                        .node("out", OutputNode.queue("BATCH.OUT"))
                        .node("copy", OutputNode.queue("BATCH.OUT"))
                        .wire("in", "out", "out")
                        .wire("in", "out", "copy")
                        .build(), 1);
                for (int i = 0; i < 2 * INPUTS; i++) {
                    BytesMessage received = (BytesMessage) out.receive(30_000);
                    int at = i;
                    assertNotNull(received, () -> "output " + at + " of " + 2 * INPUTS + " out of the flow; "
                            + FlowInputMemoryBudgetTest.counters(queues, "BATCH.IN", "BATCH.OUT"));
                    assertEquals(BYTES, received.getBodyLength());
                }
                flowHost[0].undeploy("BATCH");
                assertEquals(0, queues.queue("BATCH.IN").depth(), "every input was taken off its queue");
            }
        }
    }

    /**
     * In an AUTOMATIC flow the non-persistent messages are read inside the queue manager and settled in batches, the
     * persistent ones in transactions of their own: an invocation that fails is rolled back, its output with it, and
     * its message comes again, whatever the batches around it settle. Each message comes out once, the rolled-back
     * one from its second delivery.
     */
    @Test
    void aRolledBackInvocationIsNotConsumedWithTheBatchAroundIt() throws Exception {
        FlowHost[] flowHost = new FlowHost[1];
        try (TestServer test = TestServer.start(UnaryOperator.identity(), config -> {
            flowHost[0] = new FlowHost(FlowHostSettings.defaults());
            return WharfServer.builder(config).plugins(flowHost[0]).start();
        })) {
            int failing = 7; // persistent: the odd ones are
            flowHost[0].deploy(() -> FlowDefinition.builder("ROLLBACK")
                    .node("in", InputNode.queue("ROLLBACK.IN").transactionMode(TransactionMode.AUTOMATIC))
                    .node("compute", new FailOnMessage(failing, true))
                    .node("out", OutputNode.queue("ROLLBACK.OUT"))
                    .wire("in", "out", "compute")
                    .wire("compute", "out", "out")
                    .build(), 1);
            WharfConnectionFactory factory = new WharfConnectionFactory(test.server().vmUrl());
            try (Connection connection = factory.createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageProducer producer = session.createProducer(session.createQueue("ROLLBACK.IN"));
                int messages = 20;
                for (int i = 0; i < messages; i++) {
                    TextMessage message = session.createTextMessage("m" + i);
                    message.setIntProperty("seq", i);
                    producer.send(message, i % 2 == 1 ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT, 4, 0);
                }
                MessageConsumer out = session.createConsumer(session.createQueue("ROLLBACK.OUT"));
                Map<Integer, Integer> attempts = new TreeMap<>();
                for (int i = 0; i < messages; i++) {
                    Message received = out.receive(30_000);
                    assertNotNull(received, "output " + i + " of " + messages + "; so far " + attempts);
                    Integer before = attempts.put(received.getIntProperty("seq"), received.getIntProperty("attempt"));
                    assertNull(before, "seq " + received.getIntProperty("seq") + " came out twice");
                }
                Map<Integer, Integer> expected = new TreeMap<>();
                for (int i = 0; i < messages; i++) {
                    expected.put(i, i == failing ? 2 : 1);
                }
                assertEquals(expected, attempts, "each message once, the rolled-back one from its second delivery");
                flowHost[0].undeploy("ROLLBACK"); // the instance's readers have closed: a barrier
                assertEquals(0, test.server().queueManager().queue("ROLLBACK.IN").depth());
                assertNextIsTheMarker(session, out, "ROLLBACK.OUT");
            }
        }
    }

    /**
     * A reader that stops with a batch not yet settled settles what it received, and only that: the messages it was
     * handed and had not received go back to the queue. Every message is then either out of the flow once or back
     * on its input, never both, never neither. The reader stops while its sixth message is in the flow, with twenty
     * handed to it and nothing settled (no wait, and under a batch's bounds).
     */
    @Test
    void aReaderThatStopsSettlesWhatItReceivedAndGivesBackTheRest() throws Exception {
        FlowHost[] flowHost = new FlowHost[1];
        try (TestServer test = TestServer.start(UnaryOperator.identity(), config -> {
            flowHost[0] = new FlowHost(FlowHostSettings.defaults());
            return WharfServer.builder(config).plugins(flowHost[0]).start();
        })) {
            QueueManager queues = test.server().queueManager();
            int messages = 20;
            int stopAt = 5;
            WharfConnectionFactory factory = new WharfConnectionFactory(test.server().vmUrl());
            try (Connection connection = factory.createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageProducer producer = session.createProducer(session.createQueue("STOP.IN"));
                for (int i = 0; i < messages; i++) {
                    TextMessage message = session.createTextMessage("m" + i);
                    message.setIntProperty("seq", i);
                    producer.send(message, DeliveryMode.NON_PERSISTENT, 4, 0);
                }
                connection.createSession(true, Session.SESSION_TRANSACTED).close(); // a barrier: all are queued
                assertEquals(messages, queues.queue("STOP.IN").depth());

                HoldOnMessage gate = new HoldOnMessage(stopAt);
                DeployedFlow deployed = flowHost[0].deploy(() -> FlowDefinition.builder("STOP")
                        .node("in", InputNode.queue("STOP.IN").transactionMode(TransactionMode.NO))
                        .node("gate", gate)
                        .node("out", OutputNode.queue("STOP.OUT"))
                        .wire("in", "out", "gate")
                        .wire("gate", "out", "out")
                        .build(), 1);
                assertTrue(gate.arrived.await(30, TimeUnit.SECONDS), "the flow reached message " + stopAt);
                CompletableFuture<Boolean> undeployed = CompletableFuture.supplyAsync(
                        () -> flowHost[0].undeploy("STOP"));
                // the reader takes no more work once the flow stops running, which the undeploy says first
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (deployed.running().isRunning() && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertFalse(deployed.running().isRunning(), "the undeploy stops the flow");
                gate.release.countDown();
                assertTrue(undeployed.get(60, TimeUnit.SECONDS));

                int left = (int) queues.queue("STOP.IN").depth();
                assertEquals(messages - stopAt - 1, left, "the messages the reader had not received are back");
                TreeSet<Integer> back = new TreeSet<>();
                QueueBrowser browser = session.createBrowser(session.createQueue("STOP.IN"));
                for (Enumeration<?> e = browser.getEnumeration(); e.hasMoreElements(); ) {
                    back.add(((Message) e.nextElement()).getIntProperty("seq"));
                }
                browser.close();
                MessageConsumer out = session.createConsumer(session.createQueue("STOP.OUT"));
                List<Integer> passed = new ArrayList<>();
                for (int i = 0; i < messages - left; i++) {
                    Message received = out.receive(30_000);
                    assertNotNull(received, "output " + i + "; so far " + passed + ", back on the input " + back);
                    passed.add(received.getIntProperty("seq"));
                }
                assertNextIsTheMarker(session, out, "STOP.OUT");
                List<Integer> all = new ArrayList<>(passed);
                all.addAll(back);
                Collections.sort(all);
                List<Integer> each = new ArrayList<>();
                for (int i = 0; i < messages; i++) {
                    each.add(i);
                }
                assertEquals(each, all, "each message once, out of the flow (" + passed + ") or back on its input ("
                        + back + ")");
            }
        }
    }

    /**
     * Nothing more came out of a flow that has stopped: a marker sent to its output queue now is the next message
     * there (a message left before it would come first).
     */
    private static void assertNextIsTheMarker(Session session, MessageConsumer out, String queue) throws Exception {
        TextMessage marker = session.createTextMessage("marker");
        session.createProducer(session.createQueue(queue)).send(marker, DeliveryMode.NON_PERSISTENT, 4, 0);
        Message next = out.receive(30_000);
        assertNotNull(next, "the marker sent to " + queue);
        assertEquals("marker", next instanceof TextMessage t ? t.getText() : String.valueOf(next),
                "the next message on " + queue + " (seq " + next.getObjectProperty("seq") + ")");
    }
}
