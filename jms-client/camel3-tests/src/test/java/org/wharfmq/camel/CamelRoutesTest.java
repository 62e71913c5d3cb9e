package org.wharfmq.camel;

import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.jms.JmsComponent;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Apache Camel's {@code jms:} component on Wharf, as a Camel user writes it: a {@link WharfConnectionFactory} given
 * to the component, routes in the Java DSL, a real server. Here Camel 3 with javax.jms (Spring JMS 5 underneath);
 * jms-client/camel4-tests runs these same classes, with javax.jms renamed to jakarta.jms by the Eclipse Transformer,
 * against Camel 4 and the jakarta client.
 */
class CamelRoutesTest {

    private TestServer server;
    private WharfConnectionFactory factory;
    private CamelContext camel;

    @BeforeEach
    void start() throws Exception {
        server = TestServer.start();
        factory = new WharfConnectionFactory(server.server().tcpUrl());
        camel = new DefaultCamelContext();
        camel.addComponent("jms", JmsComponent.jmsComponent(factory));
    }

    @AfterEach
    void stop() throws Exception {
        camel.stop();
        server.close();
    }

    @Test
    void aQueueToQueueRouteTransformsEachMessage() throws Exception {
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("jms:queue:ORDERS.IN").transform(simple("order ${body} accepted")).to("jms:queue:ORDERS.OUT");
            }
        });
        camel.start();
        send("ORDERS.IN", "1", "2", "3");
        assertEquals(List.of("order 1 accepted", "order 2 accepted", "order 3 accepted"), receive("ORDERS.OUT", 3));
    }

    /**
     * InOut over a queue: Camel's default reply queue (a temporary queue per producer), an exclusive named reply queue,
     * and a shared one, where Camel selects each reply by its JMSCorrelationID as Wharf's RR-4 requesters do.
     */
    @ParameterizedTest
    @ValueSource(strings = {"", "?replyTo=ECHO.REPLY.EXCLUSIVE&replyToType=Exclusive", "?replyTo=ECHO.REPLY.SHARED&replyToType=Shared"})
    void requestReplyOverAQueue(String replyOptions) throws Exception {
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("jms:queue:ECHO").transform(simple("echo ${body}"));
            }
        });
        camel.start();
        try (ProducerTemplate template = camel.createProducerTemplate()) {
            for (int i = 0; i < 5; i++) {
                assertEquals("echo " + i, template.requestBody("jms:queue:ECHO" + replyOptions, "" + i, String.class));
            }
        }
    }

    /**
     * A transacted route (a local JMS transaction from the consumed message to the sent one) whose first attempt
     * fails after its send: the send is rolled back with it, the message comes back marked redelivered, and the second
     * attempt's send is the only one that arrives.
     */
    @Test
    void aTransactedRouteThatFailsRollsBackItsSendAndIsRedelivered() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        List<Object> redelivered = new CopyOnWriteArrayList<>();
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("jms:queue:TX.IN?transacted=true")
                        .process(e -> {
                            int attempt = attempts.incrementAndGet();
                            e.getIn().setHeader("attempt", attempt);
                            redelivered.add(e.getIn().getHeader("JMSRedelivered"));
                        })
                        .to("jms:queue:TX.OUT?transacted=true")
                        .process(e -> {
                            if (e.getIn().getHeader("attempt", Integer.class) == 1) {
                                throw new IllegalStateException("the first attempt fails after its send");
                            }
                        });
            }
        });
        camel.start();
        send("TX.IN", "payment");
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer out = session.createConsumer(session.createQueue("TX.OUT"));
            connection.start();
            TextMessage first = (TextMessage) out.receive(30_000);
            assertNotNull(first, "the second attempt's send arrives");
            assertEquals("payment", first.getText());
            assertEquals(2, first.getIntProperty("attempt"), "the failed attempt's send was rolled back: the first to "
                    + "arrive is the second attempt's");
        }
        assertEquals(List.of(false, true), redelivered, "the message came back marked JMSRedelivered");
    }

    private void send(String queue, String... bodies) throws JMSException {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            var producer = session.createProducer(session.createQueue(queue));
            for (String body : bodies) {
                producer.send(session.createTextMessage(body));
            }
        }
    }

    private List<String> receive(String queue, int count) throws JMSException {
        List<String> bodies = new java.util.ArrayList<>();
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
            connection.start();
            for (int i = 0; i < count; i++) {
                TextMessage m = (TextMessage) consumer.receive(30_000);
                assertTrue(m != null, "message " + (i + 1) + " of " + count + " on " + queue);
                bodies.add(m.getText());
            }
        }
        return bodies;
    }
}
