package org.wharfmq.server.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameType;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.queue.LocalQueue;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client's consumer window in bytes (CREATE_CONSUMER's windowBytes, CREDIT's settledBytes; docs/protocol.md,
 * "Consuming") on the wire: the server holds a consumer to the lower of its window and its maxConsumerWindowBytes,
 * counting the messages' encoded lengths, at least one message at a time; a client that settles more bytes than it
 * was sent gets no wider window; a negative count is refused as malformed, naming the field.
 */
class ConsumerWindowBytesTest {

    /** The server's maxConsumerWindowBytes. */
    private static final int LIMIT = 256 * 1024;
    private static final int BODY = 64 * 1024;
    private static final int MESSAGES = 40;
    /** The most a window of LIMIT is sent before it settles: LIMIT of messages, and the one that crosses it. */
    private static final int PER_WINDOW = LIMIT / BODY + 1;

    private TestServer testServer;
    private WharfServer server;

    @BeforeEach
    void start() throws Exception {
        testServer = TestServer.start(c -> c.queue("BIG").maxConsumerWindowBytes(LIMIT));
        server = testServer.server();
        try (FrameClient producer = FrameClient.connect(server)) {
            producer.createSession(1, false);
            for (int i = 0; i < MESSAGES; i++) {
                producer.sendMessage(1, message(i));
            }
        }
    }

    @AfterEach
    void stop() {
        testServer.close();
    }

    private static WireMessage message(int index) {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.BYTES;
        m.destination = WireDestination.queue("BIG");
        m.messageId = "ID:big-" + index;
        m.body = new byte[BODY];
        return m;
    }

    /**
     * A consumer that asks for a window of 2 GiB gets the server's 256 KiB: it is sent at most five of the forty 64
     * KiB messages (not its 1000 of credit). Settling honestly, in batches, it gets all forty in order, never holding
     * more than a window (and one message) unsettled.
     */
    @Test
    void aConsumerIsSentAtMostTheServersLimitAndGetsEverythingInOrderAsItSettles() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.request(id -> new Frame.CreateConsumer(id, 1, 7, WireDestination.queue("BIG"), null, 1000, 0, null,
                    Integer.MAX_VALUE));
            List<String> ids = new ArrayList<>();
            while (ids.size() < MESSAGES) {
                List<Frame.Deliver> sent = deliveredBeforeBarrier(client);
                assertTrue(!sent.isEmpty() && sent.size() <= PER_WINDOW, "a window of " + LIMIT + " bytes was sent "
                        + sent.size() + " messages of " + BODY + " bytes unsettled, after " + ids.size());
                long bytes = 0;
                for (Frame.Deliver d : sent) {
                    bytes += d.message().readableBytes();
                    ids.add(WireMessage.decode(d.message()).messageId);
                }
                client.send(new Frame.Credit(7, sent.size(), bytes));
            }
            for (int i = 0; i < MESSAGES; i++) {
                assertEquals("ID:big-" + i, ids.get(i));
            }
        }
    }

    /**
     * A hostile client settles far more bytes than it was sent, and no message: the server counts what the consumer
     * holds as nothing, not less, so it sends at most one more window, not the whole queue its 1000 of credit would
     * allow.
     */
    @Test
    void settlingMoreBytesThanSentWidensNoWindow() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.request(id -> new Frame.CreateConsumer(id, 1, 7, WireDestination.queue("BIG"), null, 1000, 0, null,
                    LIMIT));
            int first = deliveredBeforeBarrier(client).size();
            assertTrue(first >= 1 && first <= PER_WINDOW, first + " sent");

            client.send(new Frame.Credit(7, 0, Long.MAX_VALUE / 2));
            int second = deliveredBeforeBarrier(client).size();
            assertTrue(second <= PER_WINDOW, "after settling " + (Long.MAX_VALUE / 2) + " bytes the consumer was sent "
                    + second + " more messages: its window was widened past " + LIMIT + " bytes");
            client.send(new Frame.Credit(7, 0, Long.MAX_VALUE / 2));
            int third = deliveredBeforeBarrier(client).size();
            assertTrue(third <= PER_WINDOW, third + " more");
            assertEquals(MESSAGES - first - second - third, waiting(), "the rest waits on the queue");
        }
    }

    /** A CREDIT with a negative settledBytes is malformed: PROTOCOL_ERROR naming the field, the connection closed. */
    @Test
    void aNegativeSettledBytesIsAProtocolError() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.createConsumer(1, 7, "BIG", null, 1);
            ByteBuf credit = Unpooled.buffer();
            credit.writeInt(1 + 4 + 4 + 8).writeByte(FrameType.CREDIT.code()).writeInt(7).writeInt(1).writeLong(-1);
            client.sendRaw(credit);
            Frame frame;
            while ((frame = client.next()) instanceof Frame.Deliver) {
                // the consumer's one message of credit
            }
            Frame.Error error = (Frame.Error) frame;
            assertEquals(ErrorCode.PROTOCOL_ERROR, error.code());
            assertTrue(error.message().contains("settledBytes -1"), error.message());
            client.awaitClosed();
        }
    }

    /**
     * The deliveries the server has written to {@code client} so far: a PULL of a consumer that does not exist is
     * answered PULL_DONE after everything the server wrote for the connection's earlier frames (deliveries the queue
     * hands a consumer as it handles CREATE_CONSUMER or CREDIT are written then, on the connection's event loop).
     */
    private static List<Frame.Deliver> deliveredBeforeBarrier(FrameClient client) throws InterruptedException {
        long pullId = System.nanoTime();
        client.send(new Frame.Pull(Integer.MAX_VALUE, pullId));
        List<Frame.Deliver> delivered = new ArrayList<>();
        Frame frame;
        while ((frame = client.next()) instanceof Frame.Deliver d) {
            delivered.add(d);
        }
        assertEquals(new Frame.PullDone(Integer.MAX_VALUE, pullId), frame);
        return delivered;
    }

    /** The messages waiting on the queue, not sent to any consumer: what a browse of it sees. */
    private int waiting() {
        LocalQueue queue = server.queueManager().queue("BIG");
        int[] n = {0};
        queue.browse(queue.browse(Selector.ALL_MATCH), Integer.MAX_VALUE, (content, deliveryCount) -> {
            content.release();
            n[0]++;
        });
        return n[0];
    }
}
