package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.wharfmq.jms.FailoverEvent;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.jms.WharfJMSContext;
import org.wharfmq.server.TestServer;

import javax.jms.DeliveryMode;
import javax.jms.IllegalStateRuntimeException;
import javax.jms.InvalidDestinationRuntimeException;
import javax.jms.InvalidSelectorRuntimeException;
import javax.jms.JMSConsumer;
import javax.jms.JMSContext;
import javax.jms.JMSProducer;
import javax.jms.JMSRuntimeException;
import javax.jms.Message;
import javax.jms.MessageFormatRuntimeException;
import javax.jms.Queue;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JMS 2.0 simplified API (JMS 2.0 chapter 7 and the JMSContext, JMSProducer, JMSConsumer Javadoc) against a
 * real server. Every context is closed by the test, since the extension tracks classic connections only.
 */
@Timeout(60)
class JmsContextTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private final List<JMSContext> contexts = new CopyOnWriteArrayList<>();

    private JMSContext context(Transport transport, int mode) {
        JMSContext context = WHARF.factory(transport).createContext(mode);
        contexts.add(context);
        return context;
    }

    @org.junit.jupiter.api.AfterEach
    void closeContexts() {
        for (JMSContext c : contexts) {
            Closing.closeWithin(c, "context");
        }
    }

    /**
     * Wharf's FailoverListener on a JMSContext (the connection's, shared with the contexts made from it): it hears the
     * server go and the connection come back when the server is restarted, and the context carries on.
     */
    @Test
    void aContextsFailoverListenerHearsItsServerRestart() throws Exception {
        try (TestServer restarting = TestServer.start()) {
            int port = restarting.server().tcpPort();
            String address = "tcp://127.0.0.1:" + port;
            JMSContext context = new WharfConnectionFactory(address + "?" + Failovers.FAST).createContext();
            contexts.add(context);
            Failovers failovers = Failovers.of(context);
            JMSContext sibling = context.createContext(JMSContext.AUTO_ACKNOWLEDGE);
            contexts.add(sibling);
            assertNotNull(((WharfJMSContext) sibling).getFailoverListener(), "the contexts of a connection share it");
            Queue queue = context.createQueue("CONTEXT.RESTART");
            context.createProducer().setDeliveryMode(DeliveryMode.PERSISTENT).send(queue, "before the restart");

            restarting.restart(config -> config.port(port));
            assertEquals(address, failovers.expect(FailoverEvent.Kind.DISCONNECTED).address());
            assertEquals(address, failovers.expect(FailoverEvent.Kind.RECONNECTED).address());

            JMSConsumer consumer = context.createConsumer(queue);
            assertEquals("before the restart", consumer.receiveBody(String.class, Receive.EXPECTED_MS));
            context.createProducer().send(queue, "after the restart");
            assertEquals("after the restart", consumer.receiveBody(String.class, Receive.EXPECTED_MS));
            sibling.close();
            context.close();
        }
    }

    /** JMSProducer.send with a String, Map, byte[] or Serializable body; JMSConsumer.receiveBody returns it. */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void bodiesSentAsValuesComeBackThroughReceiveBody(Transport transport) {
        JMSContext context = context(transport, JMSContext.AUTO_ACKNOWLEDGE);
        Queue queue = context.createQueue(WHARF.queueName("ctx.bodies"));
        JMSProducer producer = context.createProducer();
        producer.send(queue, "text").send(queue, Map.of("n", 1)).send(queue, new byte[]{1, 2}).send(queue, 42L);
        JMSConsumer consumer = context.createConsumer(queue);
        assertEquals("text", consumer.receiveBody(String.class, Receive.EXPECTED_MS));
        assertEquals(Map.of("n", 1), consumer.receiveBody(Map.class, Receive.EXPECTED_MS));
        assertArrayEquals(new byte[]{1, 2}, consumer.receiveBody(byte[].class, Receive.EXPECTED_MS));
        assertEquals(42L, consumer.receiveBody(Long.class, Receive.EXPECTED_MS));
        assertNull(consumer.receiveBodyNoWait(String.class), "nothing left");
    }

    /** JMSProducer properties and header settings are applied to each message it sends. */
    @Test
    void producerPropertiesAndHeadersAreApplied() throws Exception {
        JMSContext context = context(Transport.VM, JMSContext.AUTO_ACKNOWLEDGE);
        Queue queue = context.createQueue(WHARF.queueName("ctx.props"));
        Queue replyTo = context.createQueue("REPLIES");
        JMSProducer producer = context.createProducer()
                .setProperty("count", 3).setProperty("name", "x").setJMSCorrelationID("c-1").setJMSType("order")
                .setJMSReplyTo(replyTo).setPriority(7);
        assertEquals("3", producer.getStringProperty("count"), "producer properties convert like message properties");
        assertThrows(MessageFormatRuntimeException.class, () -> producer.getBooleanProperty("count"));
        assertThrows(MessageFormatRuntimeException.class, () -> producer.setProperty("bad", new ArrayList<>()));
        assertThrows(IllegalArgumentException.class, () -> producer.setProperty("", 1));
        assertEquals(List.of("count", "name"), new ArrayList<>(producer.getPropertyNames()));
        producer.send(queue, "hello");
        Message got = context.createConsumer(queue).receive(Receive.EXPECTED_MS);
        assertNotNull(got);
        assertEquals(3, got.getIntProperty("count"));
        assertEquals("x", got.getStringProperty("name"));
        assertEquals("c-1", got.getJMSCorrelationID());
        assertEquals("order", got.getJMSType());
        assertEquals(replyTo, got.getJMSReplyTo());
        assertEquals(7, got.getJMSPriority());
    }

    /** autoStart (default true) starts the connection when a consumer is created; false leaves it to start(). */
    @Test
    void autoStartControlsWhenDeliveryBegins() {
        JMSContext context = context(Transport.VM, JMSContext.AUTO_ACKNOWLEDGE);
        assertTrue(context.getAutoStart());
        context.setAutoStart(false);
        Queue queue = context.createQueue(WHARF.queueName("ctx.autostart"));
        context.createProducer().send(queue, "waiting");
        JMSConsumer consumer = context.createConsumer(queue);
        // the server pushes the message to the consumer right after its answer; the answer to a later request on the
        // same connection (a consumer on a queue it never used is waited for) comes after it, so the message is in
        // the client's buffer: a stopped connection must keep it there
        context.createConsumer(context.createQueue(WHARF.queueName("ctx.autostart.barrier"))).close();
        assertNull(consumer.receiveNoWait(), "a stopped connection delivers nothing");
        context.start();
        assertEquals("waiting", consumer.receiveBody(String.class, Receive.EXPECTED_MS));
    }

    /** createContext(mode) shares the connection; it closes with the last context using it. */
    @Test
    void createContextSharesTheConnectionUntilTheLastCloses() {
        JMSContext first = context(Transport.TCP, JMSContext.AUTO_ACKNOWLEDGE);
        first.setClientID("ctx-shared");
        JMSContext second = first.createContext(JMSContext.CLIENT_ACKNOWLEDGE);
        contexts.add(second);
        assertEquals("ctx-shared", second.getClientID(), "same connection, same client id");
        assertEquals(JMSContext.CLIENT_ACKNOWLEDGE, second.getSessionMode());
        Queue queue = first.createQueue(WHARF.queueName("ctx.shared"));
        first.close();
        assertThrows(IllegalStateRuntimeException.class, first::createProducer, "a closed context refuses use");
        second.createProducer().send(queue, "still connected");
        JMSConsumer consumer = second.createConsumer(queue);
        Message m = consumer.receive(Receive.EXPECTED_MS);
        assertNotNull(m);
        second.acknowledge();
        second.close();
        second.close();
        assertThrows(IllegalStateRuntimeException.class, () -> second.createContext(JMSContext.AUTO_ACKNOWLEDGE));
    }

    /** A transacted context: sends are visible on commit, rollback redelivers what was consumed. */
    @Test
    void transactedContextCommitsAndRollsBack() throws Exception {
        JMSContext tx = context(Transport.VM, JMSContext.SESSION_TRANSACTED);
        assertTrue(tx.getTransacted());
        Queue queue = tx.createQueue(WHARF.queueName("ctx.tx"));
        JMSConsumer consumer = tx.createConsumer(queue);
        tx.createProducer().send(queue, "one");
        // the PULL of receiveNoWait follows the send on the same connection: the server has the send when it answers
        assertNull(consumer.receiveNoWait(), "an uncommitted send is not visible");
        tx.commit();
        assertEquals("one", consumer.receiveBody(String.class, Receive.EXPECTED_MS));
        tx.rollback();
        Message again = consumer.receive(Receive.EXPECTED_MS);
        assertInstanceOf(TextMessage.class, again);
        assertTrue(again.getJMSRedelivered(), "rollback redelivers what the transaction consumed");
        tx.commit();
        assertThrows(IllegalStateRuntimeException.class,
                () -> context(Transport.VM, JMSContext.AUTO_ACKNOWLEDGE).commit(), "commit needs a transacted context");
    }

    /**
     * receiveBody of a body that cannot be returned as the type throws MessageFormatRuntimeException; in
     * AUTO_ACKNOWLEDGE the message is not acknowledged but delivered again.
     */
    @Test
    void receiveBodyOfTheWrongTypeRedeliversInAutoAcknowledge() throws Exception {
        JMSContext context = context(Transport.VM, JMSContext.AUTO_ACKNOWLEDGE);
        Queue queue = context.createQueue(WHARF.queueName("ctx.wrongtype"));
        context.createProducer().send(queue, "not a number").send(queue, context.createStreamMessage());
        JMSConsumer consumer = context.createConsumer(queue);
        assertThrows(MessageFormatRuntimeException.class, () -> consumer.receiveBody(Integer.class, Receive.EXPECTED_MS));
        Message again = consumer.receive(Receive.EXPECTED_MS);
        assertInstanceOf(TextMessage.class, again);
        assertTrue(again.getJMSRedelivered(), "the refused message comes back");
        assertEquals(2, again.getIntProperty("JMSXDeliveryCount"));
        assertThrows(MessageFormatRuntimeException.class, () -> consumer.receiveBody(Object.class, Receive.EXPECTED_MS),
                "a StreamMessage body cannot be received as a body");
    }

    /** The unchecked exceptions the simplified API names. */
    @Test
    void runtimeExceptionsPerSpec() {
        JMSContext context = context(Transport.VM, JMSContext.AUTO_ACKNOWLEDGE);
        Queue queue = context.createQueue(WHARF.queueName("ctx.errors"));
        assertThrows(InvalidDestinationRuntimeException.class, () -> context.createProducer().send(null, "x"));
        assertThrows(InvalidDestinationRuntimeException.class, () -> context.createConsumer(null));
        assertThrows(InvalidDestinationRuntimeException.class, () -> context.createQueue(""));
        assertThrows(InvalidSelectorRuntimeException.class, () -> context.createConsumer(queue, "color = "));
        assertThrows(MessageFormatRuntimeException.class, () -> context.createProducer().send(queue, (Message) null));
        assertThrows(IllegalStateRuntimeException.class, () -> context.setClientID("too-late"),
                "the client id must be set before the context is used");
        assertThrows(JMSRuntimeException.class, () -> WHARF.factory(Transport.VM).createContext(99));
        assertThrows(JMSRuntimeException.class, () -> context.createProducer().setPriority(10));
        JMSConsumer consumer = context.createConsumer(queue);
        context.close();
        assertThrows(IllegalStateRuntimeException.class, consumer::receiveNoWait);
        assertThrows(IllegalStateRuntimeException.class, context::getMetaData);
        assertThrows(IllegalStateRuntimeException.class, context::acknowledge);
    }

    /** noLocal is ignored for queues (JMS 2.0 section 8.3): a consumer still gets its own connection's messages. */
    @Test
    void noLocalIsIgnoredForQueues() {
        JMSContext context = context(Transport.VM, JMSContext.AUTO_ACKNOWLEDGE);
        Queue queue = context.createQueue(WHARF.queueName("ctx.nolocal"));
        JMSConsumer consumer = context.createConsumer(queue, null, true);
        context.createProducer().send(queue, "mine");
        assertEquals("mine", consumer.receiveBody(String.class, Receive.EXPECTED_MS));
    }
}
