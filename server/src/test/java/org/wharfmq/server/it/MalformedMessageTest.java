package org.wharfmq.server.it;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.TestMessages;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A message whose encoding is broken inside a well-formed SEND is refused, with an error that names what is wrong,
 * before anything is stored: it cannot poison its queue, its producer's connection goes on, and consumers with
 * selectors on the queue never notice. A message the server accepts but a client cannot decode (its body is the
 * clients' business) is rejected by that client and lands in the dead-letter queue, never lost.
 */
@Timeout(60)
class MalformedMessageTest {

    private static final String DEAD_LETTER_QUEUE = "SYSTEM.DEAD.LETTER.QUEUE";

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private RawFrameClient raw;
    private Connection consumerConnection;
    private final CompletableFuture<JMSException> consumerConnectionFailed = new CompletableFuture<>();

    @BeforeEach
    void connect() throws Exception {
        raw = RawFrameClient.connect(WHARF.server().tcpPort());
        raw.handshake();
        raw.send(new Frame.CreateSession(1, 1, false, Session.AUTO_ACKNOWLEDGE));
        assertEquals(new Frame.Ok(1), raw.nextFrame());
        consumerConnection = WHARF.connect(Transport.TCP);
        consumerConnection.setExceptionListener(consumerConnectionFailed::complete);
    }

    @AfterEach
    void close() throws Exception {
        raw.close();
        assertFalse(consumerConnectionFailed.isDone(), () -> "the consumers' connection failed: " + consumerConnectionFailed.join());
    }

    @Test
    void anUnknownPropertyTagIsRefusedNamingThePropertyAndASelectorConsumerNeverNotices() throws Exception {
        String queue = WHARF.queueName("tag");
        Session session = consumerConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer selecting = session.createConsumer(session.createQueue(queue), "color = 'red'");

        ByteBuf bad = TestMessages.encode(colored(queue, "bad", true));
        int tagOffset = TestMessages.setPropertyTag(bad, "color", 0x7f);
        raw.send(new Frame.Send(2, 1, 5, bad));
        Frame.Error error = raw.expectError(ErrorCode.MALFORMED_MESSAGE);
        assertEquals(2, error.requestId());
        assertEquals("The message was refused and not stored: property 3 of 4 ('color') has unknown type tag 0x7f at "
                + "offset " + tagOffset + ". It does not follow Wharf's message encoding (docs/protocol.md, \"Message "
                + "encoding\"): the producer's client library encoded it wrongly.", error.message());
        assertEquals(0, WHARF.depth(queue), "nothing was stored (the ERROR is written once the SEND is done)");

        raw.send(new Frame.Send(3, 1, 5, TestMessages.encode(colored(queue, "good", true))));
        assertEquals(new Frame.Ok(3), raw.nextFrame(), "the producer's connection goes on");
        assertEquals("good", Receive.nextText(selecting).getText());
    }

    @Test
    void propertiesThatEndEarlyAreRefusedToAFireAndForgetSendAndALaterSelectorConsumerGetsOnlyGoodMessages() throws Exception {
        String queue = WHARF.queueName("early");
        Session session = consumerConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        session.createProducer(session.createQueue(queue)).close(); // the queue exists

        ByteBuf bad = TestMessages.encode(colored(queue, "bad", false));
        TestMessages.setPropertyCount(bad, "size", 5);
        raw.send(new Frame.Send(0, 1, 5, bad));
        Frame.Error error = raw.expectError(ErrorCode.MALFORMED_MESSAGE);
        assertEquals(0, error.requestId());
        assertEquals(1, error.sessionId(), "a fire-and-forget send's error names its session");
        assertEquals(5, error.producerId(), "and its producer");
        assertTrue(error.message().contains("after 4 of its 5 properties"), error.message());
        assertEquals(0, WHARF.depth(queue), "nothing was stored");

        raw.send(new Frame.Send(4, 1, 5, TestMessages.encode(colored(queue, "good", false))));
        assertEquals(new Frame.Ok(4), raw.nextFrame());
        MessageConsumer selecting = session.createConsumer(session.createQueue(queue), "color = 'red'");
        assertEquals("good", Receive.nextText(selecting).getText());
    }

    @Test
    void aDeliveryTheClientCannotDecodeGoesToTheDeadLetterQueueAndReceiveGoesOnToTheNext() throws Exception {
        String queue = WHARF.queueName("undecodable-receive");
        byte[] original = sendBrokenMapThenGood(queue);
        Session session = consumerConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
        assertEquals("good", Receive.nextText(consumer).getText(), "the broken message is skipped, not returned");
        assertDeadLettered(queue, original);
    }

    @Test
    void aDeliveryTheClientCannotDecodeGoesToTheDeadLetterQueueAndTheListenerGetsTheNext() throws Exception {
        String queue = WHARF.queueName("undecodable-listener");
        byte[] original = sendBrokenMapThenGood(queue);
        Session session = consumerConnection.createSession(true, Session.SESSION_TRANSACTED);
        BlockingQueue<Message> heard = new LinkedBlockingQueue<>();
        session.createConsumer(session.createQueue(queue)).setMessageListener(message -> {
            try {
                session.commit();
            } catch (JMSException e) {
                throw new IllegalStateException(e);
            }
            heard.add(message);
        });
        Message first = heard.poll(Receive.EXPECTED_MS, TimeUnit.MILLISECONDS);
        assertNotNull(first, "the listener heard nothing");
        assertEquals("good", assertInstanceOf(TextMessage.class, first).getText());
        assertDeadLettered(queue, original);
    }

    @Test
    void aBrowserSkipsAMessageItCannotDecodeAndTheMessageStaysForAConsumer() throws Exception {
        String queue = WHARF.queueName("undecodable-browse");
        sendBrokenMapThenGood(queue);
        Session session = consumerConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        List<String> browsed = new ArrayList<>();
        Enumeration<?> messages = session.createBrowser(session.createQueue(queue)).getEnumeration();
        while (messages.hasMoreElements()) { // threw a runtime exception at the broken message
            browsed.add(assertInstanceOf(TextMessage.class, messages.nextElement()).getText());
        }
        assertEquals(List.of("good"), browsed);
        assertEquals(2, WHARF.depth(queue), "browsing removed nothing");
    }

    /**
     * A MapMessage whose body says it has 99 entries in 4 bytes: the server never reads bodies, so it takes it; a
     * client cannot decode it. Then a good message. Returns the broken message's bytes.
     */
    private byte[] sendBrokenMapThenGood(String queue) throws Exception {
        WireMessage map = TestMessages.text(queue, "");
        map.bodyType = BodyType.MAP;
        map.persistent = true;
        map.body = new byte[]{0, 0, 0, 99};
        ByteBuf broken = TestMessages.encode(map);
        byte[] original = TestMessages.bytes(broken);
        raw.send(new Frame.Send(6, 1, 5, broken));
        assertEquals(new Frame.Ok(6), raw.nextFrame(), "the server stores what it can read");
        raw.send(new Frame.Send(7, 1, 5, TestMessages.encode(TestMessages.text(queue, "good"))));
        assertEquals(new Frame.Ok(7), raw.nextFrame());
        return original;
    }

    /** The dead letter of {@code queue} is a BytesMessage holding the original bytes, with the reason. */
    private void assertDeadLettered(String queue, byte[] original) throws JMSException {
        Session session = consumerConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer deadLetters = session.createConsumer(session.createQueue(DEAD_LETTER_QUEUE),
                "WHARF_DLQ_QUEUE = '" + queue + "'");
        BytesMessage letter = assertInstanceOf(BytesMessage.class, Receive.next(deadLetters));
        String reason = letter.getStringProperty("WHARF_DLQ_REASON");
        assertTrue(reason.contains("cannot decode it: map entry count 99 does not fit a body of 4 bytes"), reason);
        assertTrue(letter.getBooleanProperty("WHARF_DLQ_WRAPPED"));
        assertEquals("ID:test-", letter.getJMSMessageID(), "the original's message id");
        byte[] body = new byte[(int) letter.getBodyLength()];
        letter.readBytes(body);
        assertArrayEquals(original, body, "the original message, unchanged");
        assertEquals(0, WHARF.depth(queue), "the good message was acknowledged and the broken one moved");
    }

    /** A message to {@code queue} with four properties, 'color' = 'red' the third. */
    private static WireMessage colored(String queue, String text, boolean persistent) {
        WireMessage m = TestMessages.text(queue, text);
        m.persistent = persistent;
        m.properties.put("size", 3);
        m.properties.put("shape", "round");
        m.properties.put("color", "red");
        m.properties.put("weight", 2.5d);
        return m;
    }
}
