package org.wharfmq.server.channels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.it.TcpProxy;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Channels when the partner is down for a while, and a message crossing two channels to a third queue manager. */
class ChannelRoutesTest {

    private final ChannelServers servers = new ChannelServers();
    private final List<TestServer> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    @Test
    void messagesWaitWhileThePartnerIsDownAndFlowWhenItReturns() throws Exception {
        int qm2Port = FreePorts.one();
        TestServer qm2 = start(c -> c.name("QM2").port(qm2Port).autoCreate(false).queue("ORDERS"),
                ChannelDefinition.receiver("TO.QM2", null, null));
        start(c -> c.name("QM1").autoCreate(false).queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                sender("TO.QM2", qm2Port, "QM2"));
        qm2.stop();

        TestServer qm1 = started.get(1);
        Session onQm1 = connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        for (int i = 0; i < 5; i++) {
            producer.send(onQm1.createTextMessage("order " + i)); // persistent: stored on QM1's transmission queue
        }
        qm2.restart(); // on the same port: the channel, retrying, finds it

        Session onQm2 = connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        for (int i = 0; i < 5; i++) {
            assertEquals("order " + i, ((TextMessage) next(orders)).getText());
        }
        Receive.nothingMore(orders);
    }

    @Test
    void aConnectionCutInTheMiddleOfBatchesLosesAndDoublesNothing() throws Exception {
        cutInTheMiddle(TcpProxy::killConnections);
    }

    @Test
    void aConnectionLeftHalfOpenIsFoundDeadByTheHeartbeatAndTheChannelRunsAgain() throws Exception {
        cutInTheMiddle(TcpProxy::cutClientSides); // the receiver's side stays open until its heartbeat runs out
    }

    private void cutInTheMiddle(java.util.function.Consumer<TcpProxy> cut) throws Exception {
        TestServer qm2 = start(c -> c.name("QM2").autoCreate(false).queue("ORDERS"),
                ChannelDefinition.receiver("TO.QM2", null, null));
        TcpProxy proxy = servers.keep(TcpProxy.start(qm2.server().tcpPort()));
        TestServer qm1 = start(c -> c.name("QM1").autoCreate(false).queue(QueueDefinition.transmissionQueue("QM2"))
                        .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                ChannelDefinition.sender("TO.QM2", proxy.url(), "QM2", null, null).withBatchSize(10)
                        .withTimes(50, 60_000).withHeartbeat(300));
        Session onQm1 = connect(qm1.server().tcpUrl()).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = onQm1.createProducer(onQm1.createQueue("ORDERS"));
        for (int i = 0; i < 400; i++) {
            producer.send(onQm1.createTextMessage("order " + i));
        }
        onQm1.commit();

        Session onQm2 = connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm2.createConsumer(onQm2.createQueue("ORDERS"));
        for (int i = 0; i < 400; i++) {
            if (i == 100) {
                cut.accept(proxy);
            }
            assertEquals("order " + i, ((TextMessage) next(orders)).getText());
        }
        Receive.nothingMore(orders);
    }

    @Test
    void aMessageForAThirdQueueManagerCrossesTheQueueManagerBetween() throws Exception {
        int qm3Port = FreePorts.one();
        int qm2Port = FreePorts.one();
        start(c -> c.name("QM3").port(qm3Port).autoCreate(false).queue("ORDERS"),
                ChannelDefinition.receiver("QM2.TO.QM3", null, "QM2"));
        start(c -> c.name("QM2").port(qm2Port).autoCreate(false).queue(QueueDefinition.transmissionQueue("QM3")),
                ChannelDefinition.receiver("QM1.TO.QM2", null, "QM1"), sender("QM2.TO.QM3", qm3Port, "QM3"));
        TestServer qm1 = start(c -> c.name("QM1").autoCreate(false).queue(QueueDefinition.transmissionQueue("QM2"))
                        .reference(QueueReference.remote("ORDERS", "ORDERS", "QM3", "QM2")) // through QM2
                        .reference(QueueReference.remote("QM3", null, null, "QM2")), // QM3/... too
                sender("QM1.TO.QM2", qm2Port, "QM2"));

        Session onQm1 = connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        onQm1.createProducer(onQm1.createQueue("ORDERS")).send(onQm1.createTextMessage("via QM2"));
        onQm1.createProducer(onQm1.createQueue("queue://QM3/ORDERS")).send(onQm1.createTextMessage("qualified"));

        Session onQm3 = connect(started.get(0).server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = onQm3.createConsumer(onQm3.createQueue("ORDERS"));
        Message first = next(orders);
        assertEquals("via QM2", ((TextMessage) first).getText());
        assertEquals("QM3", first.getStringProperty(TransmissionHeader.QUEUE_MANAGER));
        assertEquals("qualified", ((TextMessage) next(orders)).getText());
        Receive.nothingMore(orders);
    }

    private TestServer start(UnaryOperator<ServerConfig.Builder> config, ChannelDefinition... channels)
            throws Exception {
        TestServer server = servers.start(config, channels);
        started.add(server);
        return server;
    }

    private static ChannelDefinition sender(String name, int port, String transmissionQueue) {
        return ChannelDefinition.sender(name, "tcp://127.0.0.1:" + port, transmissionQueue, null, null)
                .withTimes(50, 60_000);
    }

    private Connection connect(String url) throws Exception {
        return servers.connect(url);
    }

    private static Message next(MessageConsumer consumer) throws Exception {
        return ChannelServers.next(consumer);
    }
}
