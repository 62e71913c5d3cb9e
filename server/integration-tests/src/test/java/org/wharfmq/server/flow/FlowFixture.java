package org.wharfmq.server.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.runtime.HttpEndpoints;
import org.wharfmq.flow.runtime.JmsProvider;
import org.wharfmq.flow.runtime.RunningFlow;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.it.Send;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.List;

/** A real server plus a client connection, for flow tests: send to queues, run flows, collect outputs. */
final class FlowFixture implements AutoCloseable {

    /** How long a message that is expected may take to arrive: it bounds a hang only (a loaded machine is slow). */
    static final long RECEIVE_MILLIS = 30_000;

    private final TestServer testServer;
    final WharfServer server;
    final WharfConnectionFactory factory;
    private final Connection connection;
    final Session session;
    private final MessageProducer producer;
    private final List<RunningFlow> flows = new ArrayList<>();

    FlowFixture() throws Exception {
        testServer = TestServer.start();
        server = testServer.server();
        factory = new WharfConnectionFactory(server.vmUrl());
        connection = factory.createConnection();
        connection.start();
        session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        producer = session.createProducer(null);
    }

    RunningFlow run(FlowDefinition definition, int instances) throws JMSException {
        RunningFlow flow = RunningFlow.start(definition, factory, instances, false, getClass().getClassLoader());
        flows.add(flow);
        return flow;
    }

    /** Runs a flow whose JMSInput and JMSOutput nodes use {@code providers}. */
    RunningFlow run(FlowDefinition definition, int instances, JmsProvider... providers) throws JMSException {
        Map<String, JmsProvider> byName = new HashMap<>();
        for (JmsProvider provider : providers) {
            byName.put(provider.name(), provider);
        }
        RunningFlow flow = RunningFlow.start(definition, factory, Map.of(), byName, HttpEndpoints.NONE, null, instances,
                false, getClass().getClassLoader());
        flows.add(flow);
        return flow;
    }

    TextMessage send(String queue, String text, boolean persistent, String property, Object value) throws JMSException {
        TextMessage message = session.createTextMessage(text);
        if (property != null) {
            message.setObjectProperty(property, value);
        }
        producer.send(session.createQueue(queue), message,
                persistent ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT, 4, 0);
        return message;
    }

    BytesMessage sendBytes(String queue, byte[] body) throws JMSException {
        BytesMessage message = session.createBytesMessage();
        message.writeBytes(body);
        producer.send(session.createQueue(queue), message, DeliveryMode.NON_PERSISTENT, 4, 0);
        return message;
    }

    /** Receives {@code count} messages from {@code queue}, failing if one does not come within {@link #RECEIVE_MILLIS}. */
    List<Message> receive(String queue, int count) throws JMSException {
        List<Message> received = new ArrayList<>();
        try (MessageConsumer consumer = session.createConsumer(session.createQueue(queue))) {
            for (int i = 0; i < count; i++) {
                Message message = consumer.receive(RECEIVE_MILLIS);
                if (message == null) {
                    throw new AssertionError("Only " + received.size() + " of " + count + " messages arrived on "
                            + queue + " within " + RECEIVE_MILLIS + " ms");
                }
                received.add(message);
            }
        }
        return received;
    }

    Message receiveOne(String queue) throws JMSException {
        return receive(queue, 1).get(0);
    }

    /** The body of a text or bytes message as text (UTF-8 for bytes). */
    static String text(Message message) throws JMSException {
        if (message instanceof TextMessage t) {
            return t.getText();
        }
        BytesMessage b = (BytesMessage) message;
        byte[] bytes = new byte[(int) b.getBodyLength()];
        b.readBytes(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * The queue's depth once the server has handled what this fixture's connection wrote (a received message's
     * acknowledgement and its consumer's close are not waited for).
     */
    long depth(String queue) throws JMSException {
        Send.barrier(session);
        return server.queueManager().exists(queue) ? server.queueManager().depth(queue) : 0;
    }

    @Override
    public void close() throws JMSException {
        flows.forEach(RunningFlow::close);
        connection.close();
        testServer.close();
    }
}
