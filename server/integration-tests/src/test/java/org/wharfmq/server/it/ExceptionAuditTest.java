package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.IllegalStateException;
import javax.jms.IllegalStateRuntimeException;
import javax.jms.InvalidDestinationException;
import javax.jms.InvalidSelectorException;
import javax.jms.InvalidSelectorRuntimeException;
import javax.jms.JMSContext;
import javax.jms.MapMessage;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageFormatException;
import javax.jms.MessageNotReadableException;
import javax.jms.MessageNotWriteableException;
import javax.jms.MessageProducer;
import javax.jms.ObjectMessage;
import javax.jms.Queue;
import javax.jms.QueueBrowser;
import javax.jms.Session;
import javax.jms.StreamMessage;
import javax.jms.TextMessage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * An audit of the exceptions and object states the JMS 2.0 specification prescribes, checked against the real
 * server: closed objects (section 6.1.8 / 6.2.15 / 8.8 "closing": any use but close() is IllegalStateException),
 * read-only and write-only messages (3.9, 3.11: MessageNotWriteableException, MessageNotReadableException),
 * conversion errors (MessageFormatException), bad destinations and selectors.
 */
@Timeout(30)
class ExceptionAuditTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    @Test
    void aClosedConnectionRefusesEverythingButClose() throws Exception {
        Connection connection = WHARF.factory(Transport.VM).createConnection();
        connection.close();
        for (Executable call : new Executable[]{
                connection::createSession, () -> connection.createSession(Session.AUTO_ACKNOWLEDGE), connection::start,
                connection::stop, connection::getClientID, connection::getMetaData, connection::getExceptionListener,
                () -> connection.setExceptionListener(e -> { }), () -> connection.setClientID("late")}) {
            assertThrows(IllegalStateException.class, call);
        }
        connection.close(); // closing again is allowed
    }

    @Test
    void aClosedSessionRefusesEverythingButClose() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
        Queue queue = session.createQueue(WHARF.queueName("closed-session"));
        session.close();
        for (Executable call : new Executable[]{
                () -> session.createProducer(queue), () -> session.createConsumer(queue), () -> session.createBrowser(queue),
                session::createTemporaryQueue, () -> session.createQueue("Q"), session::createTextMessage,
                session::createBytesMessage, session::commit, session::rollback, session::getTransacted,
                session::getAcknowledgeMode}) {
            assertThrows(IllegalStateException.class, call);
        }
        session.close();
    }

    @Test
    void closedProducersConsumersAndBrowsersRefuseUse() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("closed-parts"));
        MessageProducer producer = session.createProducer(queue);
        MessageConsumer consumer = session.createConsumer(queue);
        QueueBrowser browser = session.createBrowser(queue);
        producer.close();
        consumer.close();
        browser.close();
        TextMessage message = session.createTextMessage("x");
        for (Executable call : new Executable[]{
                () -> producer.send(message), producer::getDeliveryMode, () -> producer.setPriority(1),
                consumer::receiveNoWait, () -> consumer.receive(1), () -> consumer.setMessageListener(m -> { }),
                consumer::getMessageSelector, browser::getEnumeration, browser::getMessageSelector}) {
            assertThrows(IllegalStateException.class, call);
        }
        producer.close();
        consumer.close();
        browser.close();
    }

    @Test
    void transactionMethodsNeedTheRightKindOfSession() throws Exception {
        Connection connection = WHARF.connect(Transport.VM);
        Session auto = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThrows(IllegalStateException.class, auto::commit);
        assertThrows(IllegalStateException.class, auto::rollback);
        Session transacted = connection.createSession(true, Session.SESSION_TRANSACTED);
        assertThrows(IllegalStateException.class, transacted::recover);
    }

    @Test
    void acknowledgingAfterTheSessionClosedIsIllegalState() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("ack-closed"));
        session.createProducer(queue).send(session.createTextMessage("x"));
        Message received = Receive.next(session.createConsumer(queue));
        session.close();
        assertThrows(IllegalStateException.class, received::acknowledge);
    }

    @Test
    void aReceivedBytesMessageStaysReadableAfterItsAcknowledgementAndTheCloseOfItsConnection() throws Exception {
        // JMS: "It is valid to continue to use message objects created or received via the connection" after its
        // close; over TCP a BytesMessage's body stays in the array its delivery was copied into
        Connection connection = WHARF.connect(Transport.TCP);
        connection.start();
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("bytes-after-close"));
        MessageProducer producer = session.createProducer(queue);
        for (int i = 0; i < 200; i++) { // more than a read buffer's worth, so the link reads on past the first
            BytesMessage m = session.createBytesMessage();
            byte[] body = new byte[2048];
            Arrays.fill(body, (byte) i);
            m.writeBytes(body);
            producer.send(m);
        }
        MessageConsumer consumer = session.createConsumer(queue);
        List<BytesMessage> received = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            received.add((BytesMessage) Receive.next(consumer));
        }
        connection.close();
        for (int i = 0; i < 200; i++) {
            BytesMessage m = received.get(i);
            assertEquals(2048, m.getBodyLength());
            byte[] body = new byte[2048];
            assertEquals(2048, m.readBytes(body));
            for (byte b : body) {
                assertEquals((byte) i, b, "message " + i);
            }
        }
    }

    @Test
    void receivedMessagesAreReadOnlyUntilCleared() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("read-only"));
        MessageProducer producer = session.createProducer(queue);
        BytesMessage bytes = session.createBytesMessage();
        bytes.writeInt(1);
        MapMessage map = session.createMapMessage();
        map.setInt("n", 1);
        StreamMessage stream = session.createStreamMessage();
        stream.writeInt(1);
        for (Message m : new Message[]{session.createTextMessage("t"), bytes, map, stream, session.createObjectMessage("o")}) {
            producer.send(m);
        }
        MessageConsumer consumer = session.createConsumer(queue);
        TextMessage text = (TextMessage) Receive.next(consumer);
        BytesMessage gotBytes = (BytesMessage) Receive.next(consumer);
        MapMessage gotMap = (MapMessage) Receive.next(consumer);
        StreamMessage gotStream = (StreamMessage) Receive.next(consumer);
        ObjectMessage gotObject = (ObjectMessage) Receive.next(consumer);
        for (Executable call : new Executable[]{
                () -> text.setText("no"), () -> text.setStringProperty("p", "no"), () -> text.setIntProperty("p", 1),
                () -> text.setObjectProperty("p", 1), () -> gotBytes.writeInt(2), () -> gotMap.setInt("m", 2),
                () -> gotStream.writeInt(2), () -> gotObject.setObject("no")}) {
            assertThrows(MessageNotWriteableException.class, call);
        }
        text.clearBody();
        text.setText("yes");
        text.clearProperties();
        text.setStringProperty("p", "yes");
        assertEquals("yes", text.getText());
        gotMap.clearBody();
        gotMap.setInt("m", 2);
        gotBytes.clearBody();
        gotBytes.writeInt(3);
        assertThrows(MessageNotReadableException.class, gotBytes::readInt, "after clearBody it is write-only");
    }

    @Test
    void newBytesAndStreamMessagesAreWriteOnlyUntilReset() throws Exception {
        Session session = WHARF.connect(Transport.VM).createSession(false, Session.AUTO_ACKNOWLEDGE);
        BytesMessage bytes = session.createBytesMessage();
        bytes.writeInt(7);
        assertThrows(MessageNotReadableException.class, bytes::readInt);
        assertThrows(MessageNotReadableException.class, bytes::getBodyLength);
        bytes.reset();
        assertEquals(7, bytes.readInt());
        assertThrows(MessageNotWriteableException.class, () -> bytes.writeInt(8), "after reset it is read-only");
        StreamMessage stream = session.createStreamMessage();
        stream.writeString("abc");
        assertThrows(MessageNotReadableException.class, stream::readString);
        stream.reset();
        assertThrows(MessageNotWriteableException.class, () -> stream.writeInt(1));
    }

    @Test
    void conversionsTheSpecForbidsAreMessageFormatExceptions() throws Exception {
        Session session = WHARF.connect(Transport.VM).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Message m = session.createMessage();
        assertThrows(MessageFormatException.class, () -> m.setObjectProperty("p", new Object()));
        m.setBooleanProperty("flag", true);
        assertThrows(MessageFormatException.class, () -> m.getIntProperty("flag"));
        m.setDoubleProperty("d", 1.5);
        assertThrows(MessageFormatException.class, () -> m.getFloatProperty("d"));
        MapMessage map = session.createMapMessage();
        assertThrows(MessageFormatException.class, () -> map.setObject("o", new java.util.Date()));
        map.setLong("l", 5);
        assertThrows(MessageFormatException.class, () -> map.getInt("l"));
        StreamMessage stream = session.createStreamMessage();
        stream.writeBoolean(true);
        stream.reset();
        assertThrows(MessageFormatException.class, stream::readInt);
        assertThrows(MessageFormatException.class,
                () -> session.createProducer(session.createQueue(WHARF.queueName("null-message"))).send(null));
    }

    @Test
    void badDestinationsAndSelectorsAreRefusedWithTheirExceptions() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThrows(InvalidDestinationException.class, () -> session.createConsumer(null));
        assertThrows(InvalidDestinationException.class, () -> session.createQueue(""));
        MessageProducer anonymous = session.createProducer(null);
        assertThrows(InvalidDestinationException.class, () -> anonymous.send(null, session.createMessage()));
        Queue queue = session.createQueue(WHARF.queueName("bad-selector"));
        assertThrows(InvalidSelectorException.class, () -> session.createConsumer(queue, "a = "));
        assertThrows(InvalidSelectorException.class, () -> session.createConsumer(queue, "JMSPriority LIKE 'x'"));
        assertThrows(InvalidSelectorException.class, () -> session.createBrowser(queue, "(a"));
    }

    @Test
    void theSimplifiedApiThrowsTheUncheckedForms() throws Exception {
        JMSContext context = WHARF.factory(Transport.VM).createContext();
        Queue queue = context.createQueue(WHARF.queueName("context-audit"));
        assertThrows(InvalidSelectorRuntimeException.class, () -> context.createConsumer(queue, "a ="));
        assertThrows(InvalidSelectorRuntimeException.class, () -> context.createBrowser(queue, "a ="));
        context.createProducer().send(queue, "started");
        assertThrows(IllegalStateRuntimeException.class, () -> context.setClientID("too-late"));
        context.close();
        assertThrows(IllegalStateRuntimeException.class, context::createProducer);
        assertThrows(IllegalStateRuntimeException.class, context::createTemporaryQueue);
        assertThrows(IllegalStateRuntimeException.class, () -> context.createBrowser(queue));
        context.close();
    }
}
