package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.runtime.RunningFlow;
import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.MessageConsumer;
import javax.jms.Session;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A flow instance whose connection is cut (here by a proxy resetting it, as a server-side drop or a network
 * failure would) reconnects and goes on processing, losing and duplicating nothing: the standalone runtime against
 * a remote server, the same code the server runs its flows with. The flow's own reconnection is what is tested, so
 * the client's is off ({@code reconnectAttempts=0}): the flow sees the loss at once.
 */
@Timeout(60)
class FlowReconnectTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    @Test
    void aFlowWhoseConnectionIsCutReconnectsAndGoesOnProcessing() throws Exception {
        String in = WHARF.queueName("flow-in");
        String out = WHARF.queueName("flow-out");
        FlowDefinition definition = FlowDefinition.builder("reconnecting")
                .node("in", InputNode.queue(in))
                .node("out", OutputNode.queue(out))
                .wire("in", "out", "out")
                .build();
        try (TcpProxy proxy = TcpProxy.start(WHARF.server().tcpPort());
             RunningFlow flow = RunningFlow.start(definition, new WharfConnectionFactory(proxy.url() + "?reconnectAttempts=0"), 2, false,
                     getClass().getClassLoader())) {
            Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer outputs = session.createConsumer(session.createQueue(out));
            Send.texts(WHARF.connect(Transport.TCP), in, "before");
            assertEquals("before", Receive.nextText(outputs).getText());

            proxy.killConnections();
            Send.texts(WHARF.connect(Transport.TCP), in, "after-1", "after-2", "after-3");

            // the old connections are dead: these can only come through new ones
            assertEquals(java.util.Set.of("after-1", "after-2", "after-3"), java.util.Set.copyOf(Receive.texts(outputs, 3)));
            // a duplicate would be an input processed twice, at any time: stopped, the flow has committed all it
            // ever will (its close lets the invocations in progress finish), so asking the server now is final
            flow.close();
            Receive.nothingMore(outputs);
            assertEquals(2, flow.statistics().reconnects(), "both instances noticed the drop and reconnected");
            assertEquals(0, WHARF.depth(in));
        }
    }
}
