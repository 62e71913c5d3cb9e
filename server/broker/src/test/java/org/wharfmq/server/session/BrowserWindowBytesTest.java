package org.wharfmq.server.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.queue.LocalQueue;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A queue browser's window in bytes on the wire (docs/protocol.md, "Browsing"): the server shows a browse at most the
 * lower of its CREATE_CONSUMER's windowBytes and its maxConsumerWindowBytes of messages it has not settled (and the
 * message that crosses them), and a browse that asks for none (a version 2 client's) that limit too; a CREDIT settles
 * the oldest messages shown, as many as its count, and its settledBytes settles nothing of a browse, so a client that
 * never returns credit holds the server to one window; the paged messages read back for a browse count against the
 * server's memory budget until settled, and are given back when the browse ends; a negative windowBytes is refused as
 * malformed, naming the field.
 */
class BrowserWindowBytesTest {

    /** The server's maxConsumerWindowBytes. */
    private static final int LIMIT = 256 * 1024;
    /** Not a divisor of LIMIT, so that the message that crosses the window is the fifth whatever the headers add. */
    private static final int BODY = 60_000;
    private static final int MESSAGES = 40;
    /** What a window of LIMIT is shown before it settles: LIMIT of messages, and the one that crosses it. */
    private static final int PER_WINDOW = LIMIT / BODY + 1;
    private static final int BROWSER = 7;

    private TestServer testServer;
    private WharfServer server;

    @BeforeEach
    void start() throws Exception {
        // PAGED's own budget holds two messages (the second crosses it); the rest are paged
        testServer = TestServer.start(c -> c.queue("BIG").queue("PAGED", 100_000, MemoryPolicy.PAGE)
                .maxConsumerWindowBytes(LIMIT));
        server = testServer.server();
    }

    @AfterEach
    void stop() {
        testServer.close();
    }

    /**
     * A browse that asks for a window of 2 GiB gets the server's 256 KiB: it is shown five of the forty 60 KB messages,
     * not its 1000 of credit. Returning credit (no bytes) for what it read, it sees all forty in order, never more
     * than a window and one message unsettled; the messages stay on the queue.
     */
    @Test
    void aBrowseIsShownAtMostTheServersLimitAndSeesEverythingInOrderAsItReturnsCredit() throws Exception {
        fill("BIG");
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.request(id -> browser(id, "BIG", BROWSER, 1000, Integer.MAX_VALUE));
            List<String> ids = new ArrayList<>();
            while (ids.size() < MESSAGES) {
                List<Frame.Deliver> shown = deliveredBeforeBarrier(client);
                assertEquals(Math.min(PER_WINDOW, MESSAGES - ids.size()), shown.size(), "a window of " + LIMIT
                        + " bytes was shown " + shown.size() + " messages of " + BODY + " bytes, after " + ids.size());
                for (Frame.Deliver d : shown) {
                    ids.add(WireMessage.decode(d.message()).messageId);
                }
                client.send(new Frame.Credit(BROWSER, shown.size()));
            }
            assertInOrder(ids);
            assertEquals(List.of(), deliveredBeforeBarrier(client), "the browse is over");
            assertEquals(MESSAGES, server.queueManager().queue("BIG").depth(), "browsing took nothing");
        }
    }

    /**
     * A hostile browse asks for no window in bytes (as a version 2 client does) and 1000 messages of credit, and
     * never returns any: the server holds it to its limit all the same. Settling bytes without credit settles
     * nothing of a browse; a PULL shows one more, beyond the window.
     */
    @Test
    void aBrowseThatAsksForNoWindowInBytesIsHeldToTheServersLimit() throws Exception {
        fill("BIG");
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.request(id -> browser(id, "BIG", BROWSER, 1000, 0));
            assertEquals(PER_WINDOW, deliveredBeforeBarrier(client).size(), "a browse without a window in bytes"
                    + " was shown more than the server's " + LIMIT + " bytes");

            client.send(new Frame.Credit(BROWSER, 0, Long.MAX_VALUE / 2));
            assertEquals(List.of(), deliveredBeforeBarrier(client), "settledBytes widened a browse's window");

            client.send(new Frame.Pull(BROWSER, 1));
            assertEquals(1, client.deliveries(1).size());
            assertEquals(new Frame.PullDone(BROWSER, 1), client.next());
            assertEquals(List.of(), deliveredBeforeBarrier(client));
        }
    }

    /**
     * A queue whose messages are paged past its budget is browsed: the copies read back from the page files count
     * against the server's memory budget while the browse holds them unsettled (a window and the one a PULL adds, at
     * most), a CREDIT gives them back as it settles them, and the end of the browse gives back what it still held.
     */
    @Test
    void pagedMessagesReadBackForABrowseCountAgainstTheMemoryBudgetUntilSettled() throws Exception {
        fill("PAGED");
        LocalQueue queue = server.queueManager().queue("PAGED");
        long inMemory = queue.depth() - queue.paged();
        assertTrue(queue.paged() >= MESSAGES - 2, "the queue pages past its budget: " + queue.paged() + " paged");
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.request(id -> browser(id, "PAGED", BROWSER, 1000, LIMIT));
            List<String> ids = new ArrayList<>();
            long pullId = 0;
            while (true) {
                List<Frame.Deliver> shown = pulled(client, BROWSER, ++pullId); // after the paging thread's read
                if (shown.isEmpty()) {
                    break;
                }
                assertTrue(shown.size() <= PER_WINDOW + 1, shown.size() + " shown unsettled");
                long pagedBytes = 0;
                for (Frame.Deliver d : shown) {
                    if (ids.size() >= inMemory) {
                        pagedBytes += d.message().readableBytes();
                    }
                    ids.add(WireMessage.decode(d.message()).messageId);
                }
                assertEquals(pagedBytes, heldForBrowses(queue), "the paged copies the browse holds unsettled");
                client.send(new Frame.Credit(BROWSER, shown.size()));
            }
            assertInOrder(ids);
            assertEquals(0, heldForBrowses(queue), "every copy settled");

            client.request(id -> browser(id, "PAGED", BROWSER + 1, 1000, LIMIT)); // ended while it holds a window
            List<Frame.Deliver> shown = pulled(client, BROWSER + 1, 1);
            assertTrue(heldForBrowses(queue) > 0, "the second browse holds paged copies");
            client.send(new Frame.CloseConsumer(0, 1, BROWSER + 1, 0));
            deliveredBeforeBarrier(client);
            assertEquals(0, heldForBrowses(queue), "the browse's end gave back the " + shown.size() + " it held");
        }
    }

    /** A browser's CREATE_CONSUMER with a negative windowBytes is malformed: PROTOCOL_ERROR naming the field. */
    @Test
    void aNegativeWindowBytesIsAProtocolError() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            ByteBuf frame = Unpooled.buffer();
            FrameClient.append(frame, browser(client.requestId(), "BIG", BROWSER, 1000, 1)); // windowBytes last
            frame.setInt(frame.writerIndex() - Integer.BYTES, -1);
            client.sendRaw(frame);
            Frame.Error error = client.expect(Frame.Error.class);
            assertEquals(ErrorCode.PROTOCOL_ERROR, error.code());
            assertTrue(error.message().contains("windowBytes -1"), error.message());
            client.awaitClosed();
        }
    }

    /** CREATE_CONSUMER of browser {@code id} of {@code queue} in session 1. */
    private static Frame.CreateConsumer browser(int requestId, String queue, int id, int credit, int windowBytes) {
        return new Frame.CreateConsumer(requestId, 1, id, WireDestination.queue(queue), null, credit,
                Frame.CONSUMER_BROWSER, null, windowBytes);
    }

    /** Puts the forty messages on {@code queue}. */
    private void fill(String queue) throws Exception {
        try (FrameClient producer = FrameClient.connect(server)) {
            producer.createSession(1, false);
            for (int i = 0; i < MESSAGES; i++) {
                WireMessage m = new WireMessage();
                m.bodyType = BodyType.BYTES;
                m.destination = WireDestination.queue(queue);
                m.messageId = "ID:browsed-" + i;
                m.body = new byte[BODY];
                producer.sendMessage(1, m);
            }
        }
        assertEquals(MESSAGES, server.queueManager().queue(queue).depth());
    }

    private static void assertInOrder(List<String> ids) {
        assertEquals(MESSAGES, ids.size());
        for (int i = 0; i < MESSAGES; i++) {
            assertEquals("ID:browsed-" + i, ids.get(i), "the browse shows the messages in order");
        }
    }

    /**
     * What the server's memory budget counts beyond the queues' own messages: the paged copies browses hold (the
     * budget is the sum of the queues' counts and those; {@code queue} is the only queue with messages).
     */
    private long heldForBrowses(LocalQueue queue) {
        return server.queueManager().memoryBudget().usedBytes() - queue.heldBytes();
    }

    /**
     * Browser {@code id}'s PULL {@code pullId}: the deliveries before its PULL_DONE, which comes once the paged
     * messages being read for the browse are read and written (docs/protocol.md, "Browsing"). The paging thread reads them
     * after it has written the messages paged before, so the queue's count is settled then too.
     */
    private static List<Frame.Deliver> pulled(FrameClient client, int id, long pullId) throws InterruptedException {
        client.send(new Frame.Pull(id, pullId));
        return deliveriesUntil(client, new Frame.PullDone(id, pullId));
    }

    /**
     * The deliveries the server has written to {@code client} so far: a PULL of a consumer that does not exist is
     * answered PULL_DONE after everything the server wrote for the connection's earlier frames (what a browse shows
     * from memory as it handles CREATE_CONSUMER or CREDIT is written then, on the connection's event loop).
     */
    private static List<Frame.Deliver> deliveredBeforeBarrier(FrameClient client) throws InterruptedException {
        long pullId = System.nanoTime();
        client.send(new Frame.Pull(Integer.MAX_VALUE, pullId));
        return deliveriesUntil(client, new Frame.PullDone(Integer.MAX_VALUE, pullId));
    }

    private static List<Frame.Deliver> deliveriesUntil(FrameClient client, Frame.PullDone done)
            throws InterruptedException {
        List<Frame.Deliver> delivered = new ArrayList<>();
        Frame frame;
        while ((frame = client.next()) instanceof Frame.Deliver d) {
            delivered.add(d);
        }
        assertEquals(done, frame);
        return delivered;
    }
}
