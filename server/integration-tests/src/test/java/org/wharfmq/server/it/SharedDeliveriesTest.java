package org.wharfmq.server.it;

import org.wharfmq.protocol.auth.Mechanisms;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Shared deliveries (docs/protocol.md): a publication to several subscribers of one connection crosses that connection
 * once, and each subscriber still gets a message of its own, whole, which stays as it was while the others are read.
 */
@Timeout(60)
class SharedDeliveriesTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private static final int SUBSCRIBERS = 10;
    private static final int PUBLICATIONS = 20;
    private static final int SIZE = 2048;

    private static byte[] body(int publication) {
        byte[] body = new byte[SIZE];
        for (int i = 0; i < SIZE; i++) {
            body[i] = (byte) (publication * 31 + i);
        }
        return body;
    }

    @Test
    void aPublicationToTheSubscribersOfOneConnectionCrossesItOnceAndEachGetsItsOwnMessage() throws Exception {
        String topic = "test/" + WHARF.queueName("shared").toLowerCase();
        try (TcpProxy proxy = TcpProxy.start(WHARF.server().tcpPort())) {
            Connection subscribing = WHARF.track(new WharfConnectionFactory(proxy.url()).createConnection());
            // started before its consumers: each is created with its credit, so a publication reaches them all in one
            // write of the server (a consumer granted credit later takes what waits for it in a write of its own)
            subscribing.start();
            List<MessageConsumer> consumers = new ArrayList<>();
            for (int i = 0; i < SUBSCRIBERS; i++) {
                Session session = subscribing.createSession(false, Session.AUTO_ACKNOWLEDGE);
                consumers.add(session.createConsumer(session.createTopic(topic)));
            }
            Session publishing = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = publishing.createProducer(publishing.createTopic(topic));
            producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);

            List<List<Message>> received = new ArrayList<>();
            for (int i = 0; i < SUBSCRIBERS; i++) {
                received.add(new ArrayList<>());
            }
            for (int p = 0; p < PUBLICATIONS; p++) {
                BytesMessage message = publishing.createBytesMessage();
                message.writeBytes(body(p));
                message.setIntProperty("n", p);
                producer.send(message);
                // the barrier: the publication has reached the connection before the next is sent, so the server
                // wrote each on its own, not several in one write (each would still go once up to its 16 slots)
                received.get(0).add(Receive.next(consumers.get(0)));
            }
            TextMessage text = publishing.createTextMessage("not kept");
            producer.send(text);
            for (int i = 1; i < SUBSCRIBERS; i++) {
                for (int p = 0; p < PUBLICATIONS; p++) {
                    received.get(i).add(Receive.next(consumers.get(i)));
                }
            }
            for (MessageConsumer consumer : consumers) {
                assertEquals("not kept", Receive.nextText(consumer).getText());
            }
            long read = proxy.bytesFromServers();

            // every message whole and its own: read after all the others were, and after a message sharing its bytes
            // was read to its end
            for (int i = SUBSCRIBERS - 1; i >= 0; i--) {
                for (int p = 0; p < PUBLICATIONS; p++) {
                    BytesMessage m = assertInstanceOf(BytesMessage.class, received.get(i).get(p));
                    assertEquals(p, m.getIntProperty("n"), "subscriber " + i);
                    assertEquals(SIZE, m.getBodyLength());
                    byte[] got = new byte[SIZE + 1];
                    assertEquals(SIZE, m.readBytes(got), "subscriber " + i + ", publication " + p);
                    assertArrayEquals(body(p), Arrays.copyOf(got, SIZE), "subscriber " + i + ", publication " + p);
                }
            }
            long copies = (long) SUBSCRIBERS * PUBLICATIONS * SIZE;
            assertTrue(read < copies / 4, "the subscribers' connection read " + read + " bytes for " + PUBLICATIONS
                    + " publications of " + SIZE + " bytes to " + SUBSCRIBERS + " subscribers; a copy each would be "
                    + copies + " bytes");
            subscribing.close();
        }
    }

    /** A client that says it keeps more slots than the protocol allows (or none) is refused, naming the range. */
    @Test
    void aShareDeliveriesOutsideItsRangeIsAProtocolError() throws Exception {
        for (int slots : new int[]{0, Frame.ShareDeliveries.MAX_SLOTS + 1}) {
            try (RawFrameClient client = RawFrameClient.connect(WHARF.server().tcpPort())) {
                client.send(new Frame.Hello(ProtocolVersion.CURRENT, "greedy", 0));
                assertInstanceOf(Frame.AuthMechanisms.class, client.nextFrame());
                client.send(new Frame.Auth(Mechanisms.ANONYMOUS, new byte[0]));
                assertInstanceOf(Frame.HelloOk.class, client.nextFrame());
                client.send(new Frame.ShareDeliveries(slots));
                Frame.Error error = client.expectErrorAndClose(ErrorCode.PROTOCOL_ERROR);
                assertTrue(error.message().contains("SHARE_DELIVERIES says the client keeps " + slots + " messages; 1 to "
                        + Frame.ShareDeliveries.MAX_SLOTS + " are allowed"), error.message());
            }
        }
    }
}
