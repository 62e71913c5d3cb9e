package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection cut by the network in the middle of transactions loses nothing and invents nothing: messages it
 * had received without committing come back redelivered, messages it had sent without committing never appear,
 * and a client that does not reconnect ({@code reconnectAttempts=0}) learns of the loss through its
 * ExceptionListener. (One that reconnects: {@link ReconnectTest}.)
 */
@Timeout(60)
class ConnectionDropTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private static final int RECEIVED_UNCOMMITTED = 5;
    private static final int SENT_UNCOMMITTED = 3;

    @Test
    void connectionKilledMidTransactionLosesNothing() throws Exception {
        String queueName = WHARF.queueName("drop");
        List<String> committed = IntStream.range(0, RECEIVED_UNCOMMITTED).mapToObj(i -> "committed-" + i).toList();
        Send.texts(WHARF.connect(Transport.TCP), queueName, committed.toArray(String[]::new));

        try (TcpProxy proxy = TcpProxy.start(WHARF.server().tcpPort())) {
            Connection doomed = WHARF.track(new WharfConnectionFactory(proxy.url() + "?reconnectAttempts=0").createConnection());
            CompletableFuture<JMSException> lost = new CompletableFuture<>();
            doomed.setExceptionListener(lost::complete);
            doomed.start();

            Session consuming = doomed.createSession(true, Session.SESSION_TRANSACTED);
            MessageConsumer consumer = consuming.createConsumer(consuming.createQueue(queueName));
            assertEquals(committed, Receive.texts(consumer, RECEIVED_UNCOMMITTED));

            Session producing = doomed.createSession(true, Session.SESSION_TRANSACTED);
            MessageProducer producer = producing.createProducer(producing.createQueue(queueName));
            for (int i = 0; i < SENT_UNCOMMITTED; i++) {
                producer.send(producing.createTextMessage("uncommitted-" + i));
            }
            Send.barrier(producing); // the server has the fire-and-forget sends before the connection drops

            proxy.killConnections();

            JMSException reported = lost.get(15, TimeUnit.SECONDS);
            assertNotNull(reported, "ExceptionListener called with an exception");
        }

        Session fresh = WHARF.connect(Transport.TCP).createSession(false, Session.CLIENT_ACKNOWLEDGE);
        MessageConsumer consumer = fresh.createConsumer(fresh.createQueue(queueName));
        List<String> again = new ArrayList<>();
        TextMessage last = null;
        for (int i = 0; i < RECEIVED_UNCOMMITTED; i++) {
            last = Receive.nextText(consumer);
            again.add(last.getText());
            assertTrue(last.getJMSRedelivered(), last.getText() + " must come back marked redelivered");
        }
        assertEquals(committed, again, "the uncommitted receives come back, in order");
        Receive.nothingMore(consumer);
        last.acknowledge();
        assertEquals(0, WHARF.depth(queueName), "nothing else on the queue");
    }
}
