package org.wharfmq.server.it;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.wharfmq.server.Configuration;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.Topic;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * A session's DELIVER frames written in one batch: short messages copied with their headers into shared buffers
 * ({@link Configuration#DELIVER_COPY_LIMIT_BYTES}, more than {@link Configuration#DELIVER_BATCH_BYTES} of them in a
 * row), long ones between them from their own bytes. Every consumer gets every message whole and in order, over TCP
 * and over the in-VM transport (whose local channels carry the same bytes).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DeliveryBatchTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private static final int LIMIT = Configuration.DELIVER_COPY_LIMIT_BYTES;

    /** Sizes on both sides of the copy limit, empty bodies, and a run of short ones past one batch buffer. */
    private static int[] sizes() {
        List<Integer> sizes = new ArrayList<>(List.of(0, 1, 2048, LIMIT, LIMIT + 1, 0, 100_000, 17, LIMIT - 21));
        for (int i = 0; i < 2 * Configuration.DELIVER_BATCH_BYTES / LIMIT + 2; i++) {
            sizes.add(i % 3 == 0 ? LIMIT + 1 : LIMIT - i);
        }
        sizes.add(3);
        return sizes.stream().mapToInt(Integer::intValue).toArray();
    }

    private static byte[] body(int index, int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (index * 31 + i);
        }
        return b;
    }

    /** A backlog on a queue, delivered when the consumer opens: one batch of the prefetch window. */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void aQueuesBacklogOfMixedSizesArrivesWholeAndInOrder(Transport transport) throws Exception {
        Connection connection = WHARF.connect(transport);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        javax.jms.Queue queue = session.createQueue(WHARF.queueName("batch"));
        int[] sizes = sizes();
        send(session.createProducer(queue), session, sizes);
        expect(session.createConsumer(queue), sizes);
    }

    /** Three subscribers of one session: each publication is three deliveries of that session's batch. */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void subscribersOfOneSessionEachGetEveryPublicationWholeAndInOrder(Transport transport) throws Exception {
        Connection connection = WHARF.connect(transport);
        Session subscribing = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = subscribing.createTopic("batch/" + WHARF.queueName("topic"));
        List<MessageConsumer> subscribers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            subscribers.add(subscribing.createConsumer(topic));
        }
        Session publishing = WHARF.connect(transport).createSession(false, Session.AUTO_ACKNOWLEDGE);
        int[] sizes = sizes();
        send(publishing.createProducer(topic), publishing, sizes);
        for (MessageConsumer subscriber : subscribers) {
            expect(subscriber, sizes);
        }
    }

    private static void send(MessageProducer producer, Session session, int[] sizes) throws JMSException {
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        for (int i = 0; i < sizes.length; i++) {
            BytesMessage m = session.createBytesMessage();
            m.setIntProperty("index", i);
            m.writeBytes(body(i, sizes[i]));
            producer.send(m);
        }
    }

    private static void expect(MessageConsumer consumer, int[] sizes) throws JMSException {
        for (int i = 0; i < sizes.length; i++) {
            BytesMessage m = (BytesMessage) consumer.receive(10_000);
            assertNotNull(m, "message " + i + " of " + sizes.length + " (" + sizes[i] + " bytes)");
            assertEquals(i, m.getIntProperty("index"));
            byte[] got = new byte[(int) m.getBodyLength()];
            m.readBytes(got);
            assertArrayEquals(body(i, sizes[i]), got, "body of message " + i + " (" + sizes[i] + " bytes)");
        }
    }
}
