package org.wharfmq.server.it;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameEncoder;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.topic.TopicManager;

import javax.jms.Connection;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A message that waits no longer keeps alive the buffer it arrived in (issue 22: a queue of 2 KB messages held about
 * 5 KB per message). Each message here arrives alone in a 16 KiB buffer, as a small message does in a read buffer
 * sized for larger reads (the in-VM transport hands the server the very buffer the client wrote, so the test decides
 * what the server's messages are slices of); the server reports what its waiting messages keep alive
 * ({@link LocalQueue#retainedBufferBytes}), and the real client then receives every one intact and in order.
 */
@Timeout(60)
class CompactionTest {

    private static final int MESSAGES = 200;
    private static final int BODY_BYTES = 300;
    /** The buffer each message arrives in: far larger than the message. */
    private static final int ARRIVAL_BUFFER_BYTES = 16 * 1024;
    /** What the waiting messages may keep alive: their bytes with room for headers and a last region's unused end. */
    private static final long ALLOWED_BYTES = 2L * MESSAGES * BODY_BYTES + 64 * 1024;

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    @Test
    void waitingQueueMessagesKeepOnlyTheirOwnBytesAlive() throws Exception {
        String queue = WHARF.queueName("compact");
        try (FrameClient producer = FrameClient.inVm(WHARF.server())) {
            producer.hello();
            producer.createSession(1, false);
            sendEachInABigBuffer(producer, i -> message(i, WireDestination.queue(queue)));
        }
        assertEquals(MESSAGES, WHARF.depth(queue));
        long retained = WHARF.server().queueManager().queue(queue).retainedBufferBytes();
        assertTrue(retained <= ALLOWED_BYTES, () -> MESSAGES + " waiting messages of " + BODY_BYTES
                + " bytes keep " + retained + " bytes alive, more than " + ALLOWED_BYTES
                + " (each still pins the " + ARRIVAL_BUFFER_BYTES + "-byte buffer it arrived in?)");

        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
        assertEquals(expectedBodies(), Receive.texts(consumer, MESSAGES));
        Receive.nothingMore(consumer);
    }

    @Test
    void aSlowSubscriptionsBacklogKeepsOnlyItsOwnBytesAlive() throws Exception {
        String topic = "compact/" + WHARF.queueName("topic").toLowerCase();
        Connection subscriber = WHARF.track(WHARF.factory(Transport.TCP).createConnection());
        subscriber.setClientID(WHARF.queueName("compact-subscriber"));
        subscriber.start();
        Session session = subscriber.createSession(false, Session.AUTO_ACKNOWLEDGE);
        session.createDurableSubscriber(session.createTopic(topic), "slow").close(); // keeps it; nobody consumes
        LocalQueue backlog = subscriptionQueue(topic);
        Session other = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer keepsUp = other.createConsumer(other.createTopic(topic)); // shares the compacted bytes

        try (FrameClient publisher = FrameClient.inVm(WHARF.server())) {
            publisher.hello();
            publisher.createSession(1, false);
            sendEachInABigBuffer(publisher, i -> message(i, WireDestination.topic(topic)));
        }
        assertEquals(MESSAGES, backlog.depth());
        long retained = backlog.retainedBufferBytes();
        assertTrue(retained <= ALLOWED_BYTES, () -> "the slow subscription's " + MESSAGES + " waiting publications of "
                + BODY_BYTES + " bytes keep " + retained + " bytes alive, more than " + ALLOWED_BYTES);

        assertEquals(expectedBodies(), Receive.texts(keepsUp, MESSAGES));
        MessageConsumer consumer = session.createDurableSubscriber(session.createTopic(topic), "slow");
        assertEquals(expectedBodies(), Receive.texts(consumer, MESSAGES));
        Receive.nothingMore(consumer);
    }

    /**
     * Sends every message without an answer, each alone at the start of a buffer of {@link #ARRIVAL_BUFFER_BYTES},
     * then one answered request: the server handles a connection's frames in order, so once it is answered every
     * message has been taken.
     */
    private static void sendEachInABigBuffer(FrameClient client, IntFunction<WireMessage> message) throws Exception {
        for (int i = 0; i < MESSAGES; i++) {
            ByteBuf encoded = TestMessages.encode(message.apply(i));
            ByteBuf arrival = Unpooled.buffer(ARRIVAL_BUFFER_BYTES, ARRIVAL_BUFFER_BYTES);
            FrameEncoder.writeHeader(new Frame.Send(0, 1, 1, encoded), arrival);
            arrival.writeBytes(encoded);
            encoded.release();
            client.sendRaw(arrival);
        }
        client.createSession(2, false); // the barrier
    }

    private static LocalQueue subscriptionQueue(String topic) {
        TopicManager topics = WHARF.server().topicManager();
        String queueName = topics.describe().stream().filter(s -> s.topic().equals(topic)).findFirst().orElseThrow()
                .queueName();
        return topics.subscriptionQueue(queueName);
    }

    private static WireMessage message(int i, WireDestination destination) {
        WireMessage m = TestMessages.text("unused", body(i));
        m.destination = destination;
        m.messageId = "ID:compact-" + i;
        return m;
    }

    private static String body(int i) {
        String number = String.format("%05d:", i);
        return number + "x".repeat(BODY_BYTES - number.length());
    }

    private static List<String> expectedBodies() {
        List<String> bodies = new ArrayList<>(MESSAGES);
        for (int i = 0; i < MESSAGES; i++) {
            bodies.add(body(i));
        }
        return bodies;
    }
}
