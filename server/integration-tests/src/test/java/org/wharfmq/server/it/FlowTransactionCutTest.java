package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.runtime.RunningFlow;
import org.wharfmq.jms.FailoverEvent;
import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flow instance whose transactional invocation is cut by the client's own reconnection: the client comes back by
 * itself and the invocation's commit throws TransactionRolledBackException. That is neither a failure of the flow
 * nor a lost connection: the message comes again and is processed, the flow does not rebuild its connection, and
 * the invocation is not counted as failed (nor remembered as a failure for the backout path).
 */
@Timeout(60)
class FlowTransactionCutTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    @Test
    void aTransactionRolledBackByTheClientsReconnectionIsDeliveredAgainWithoutAFailureOrAFlowReconnect() throws Exception {
        String in = WHARF.queueName("flow-cut-in");
        String out = WHARF.queueName("flow-cut-out");
        HoldFirstDelivery hold = new HoldFirstDelivery();
        FlowDefinition definition = FlowDefinition.builder("cut")
                .node("in", InputNode.queue(in).transactionMode(TransactionMode.YES))
                .node("hold", hold)
                .node("out", OutputNode.queue(out))
                .wire("in", "out", "hold")
                .wire("hold", "out", "out")
                .build();
        BlockingQueue<Failovers> failovers = new LinkedBlockingQueue<>();
        try (TcpProxy proxy = TcpProxy.start(WHARF.server().tcpPort())) {
            // the flow's one connection, reconnecting by itself, with its failover events for the test to wait for
            WharfConnectionFactory factory = new WharfConnectionFactory(proxy.url() + "?" + Failovers.FAST) {
                @Override
                public Connection createConnection() throws JMSException {
                    Connection connection = super.createConnection();
                    failovers.add(Failovers.of(connection));
                    return connection;
                }
            };
            try (RunningFlow flow = RunningFlow.start(definition, factory, 1, false, getClass().getClassLoader())) {
                Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer outputs = session.createConsumer(session.createQueue(out));
                Send.texts(WHARF.connect(Transport.TCP), in, "cut");

                assertTrue(hold.entered.await(30, TimeUnit.SECONDS), "the flow did not take the message");
                Failovers connection = failovers.poll(30, TimeUnit.SECONDS);
                proxy.killConnections();
                connection.expect(FailoverEvent.Kind.DISCONNECTED);
                connection.expect(FailoverEvent.Kind.RECONNECTED);
                hold.release.countDown(); // its output and commit now go over the new link: the commit is rolled back

                TextMessage output = Receive.nextText(outputs);
                assertEquals("cut", output.getText());
                assertEquals(2, output.getIntProperty("attempt"), "the output of the rolled-back first delivery came out");
                flow.close();
                Receive.nothingMore(outputs);
                assertEquals(0, WHARF.depth(in));
                assertEquals(0, flow.statistics().reconnects(),
                        "the flow rebuilt a connection its client had already made again");
                assertEquals(0, flow.statistics().failures(), "a rollback by the reconnection counted as a failure");
                assertTrue(failovers.isEmpty(), "the flow opened another connection");
            }
        }
    }

    /** Passes each message on; on its first delivery, first waits for the test to cut the connection. */
    private static final class HoldFirstDelivery extends JavaComputeNode {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            int attempt = ((Number) assembly.message().headers().get(FlowMessage.JMSX_DELIVERY_COUNT)).intValue();
            if (attempt == 1) {
                entered.countDown();
                assertTrue(release.await(30, TimeUnit.SECONDS));
            }
            MessageAssembly copy = assembly.copy();
            copy.message().setUserProperty("attempt", attempt);
            propagate("out", copy);
        }
    }
}
