package org.wharfmq.client.core;

import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.selector.SelectorParseException;
import org.wharfmq.server.TestClock;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.wharfmq.client.core.TestWaits.WAIT;

/**
 * The core client's browse against a real server, through the core's API alone: every message shown in order, page by
 * page as credit goes back (half the session's window at a time) and PULLs ask for more, the end of the queue, nothing
 * consumed; a message expired since the server showed it and one the decoder cannot read skipped and left on the
 * queue; a selector the grammar refuses failing before anything is sent, one the server refuses with its code.
 */
class CoreBrowserTest extends ConnectedTest {
    private static final WireDestination QUEUE = WireDestination.queue("CORE.BROWSED");
    private static final long HOUR = 3_600_000;
    private static final int WINDOW_BYTES = ClientConfiguration.DEFAULT_CONSUMER_WINDOW_BYTES;

    @Test
    void showsEveryMessageInOrderPageByPageAndConsumesNone() throws Exception {
        connection.start();
        // a window of 2: credit goes back one at a time, the other three come only as it does and PULLs ask
        CoreSession session = new CoreSession(connection, CoreSettlement.CLIENT_ACKNOWLEDGE, 2, false, CoreSession.Hooks.NONE);
        session.open();
        int producer = TestSessions.producer(session, QUEUE);
        for (int i = 1; i <= 5; i++) {
            TestMessages.send(session, producer, QUEUE, "b" + i);
        }

        CoreBrowser browse = CoreBrowser.open(session, QUEUE, null, WINDOW_BYTES);
        for (int i = 1; i <= 5; i++) {
            TestMessages.Received m = browse.next(TestMessages.RECEIVED);
            assertNotNull(m, "b" + i + " was not shown");
            assertEquals("b" + i, m.text);
        }
        assertNull(browse.next(TestMessages.RECEIVED), "the end of the queue");

        CoreConsumer consumer = session.createConsumer(new CoreConsumer.Spec(session.id(), QUEUE, null, 10, 0, null));
        TestMessages.Received first = TestSessions.receive(consumer, WAIT);
        assertNotNull(first, "browsing consumed the messages");
        assertEquals("b1", first.text);
    }

    /**
     * The server's clock is an hour behind the client's: a message with a time to live of 1 ms is live to the server,
     * which shows it, and expired to the client, which must skip it. The decoder refuses "unreadable". Both stay on
     * the queue: browsing takes nothing.
     */
    @Test
    void skipsAMessageExpiredSinceTheServerShowedItAndOneTheDecoderCannotRead() throws Exception {
        TestClock clock = new TestClock();
        clock.advance(-HOUR);
        try (TestServer behind = TestServer.start(config -> config,
                config -> WharfServer.builder(config).clock(clock).start())) {
            CoreConnection c = CoreConnection.connect(ConnectionSettings.of(BrokerAddress.tcp("127.0.0.1",
                    behind.server().tcpPort()), null, null, "core-browser-test"), ConnectionListener.NONE);
            try {
                c.start();
                CoreSession session = TestSessions.open(c, CoreSettlement.AUTO_ACKNOWLEDGE);
                int producer = TestSessions.producer(session, QUEUE);
                TestMessages.send(session, producer, QUEUE, "first");
                long sent = System.currentTimeMillis();
                session.sender().send(producer, QUEUE, TestMessages.message("expired", true), CoreSender.WIRE_MESSAGE,
                        true, 1, 0, 0, null);
                TestMessages.send(session, producer, QUEUE, "unreadable");
                TestMessages.send(session, producer, QUEUE, "last");
                while (System.currentTimeMillis() <= sent + 1) {
                    Thread.onSpinWait(); // the client's clock past the expiry: a millisecond, at most
                }

                List<String> shown = new ArrayList<>();
                CoreBrowser browse = CoreBrowser.open(session, QUEUE, null, WINDOW_BYTES);
                for (TestMessages.Received m; (m = browse.next(refusing("unreadable"))) != null; ) {
                    shown.add(m.text);
                }
                assertEquals(List.of("first", "last"), shown);
                assertEquals(4, behind.server().queueManager().queue(QUEUE.name()).depth(),
                        "browsing took or rejected a message");
            } finally {
                c.close();
            }
        }
    }

    @Test
    void aSelectorTheGrammarRefusesFailsBeforeAnythingIsSent() throws Exception {
        CoreSession session = TestSessions.open(connection, CoreSettlement.AUTO_ACKNOWLEDGE);
        // the server refuses it too, with the same code: the parser's exception as the cause says the client did
        List<ClientException> refusals = List.of(
                assertThrows(ClientException.class, () -> CoreBrowser.validate(session, QUEUE, "price >")),
                assertThrows(ClientException.class, () -> CoreBrowser.open(session, QUEUE, "price >", WINDOW_BYTES)),
                assertThrows(ClientException.class, () -> session.createConsumer(
                        new CoreConsumer.Spec(session.id(), QUEUE, "price >", 10, 0, null))));
        for (ClientException refused : refusals) {
            assertEquals(ErrorCode.INVALID_SELECTOR, refused.code(), refused.getMessage());
            assertInstanceOf(SelectorParseException.class, refused.getCause(), "not refused by the client's parse");
        }
        assertNull(CoreBrowser.validate(session, QUEUE, "  "), "a blank selector is none");
    }

    /** A decoder that cannot read the message whose text is {@code text}. */
    private static CoreConsumer.Decoder<TestMessages.Received> refusing(String text) {
        return new CoreConsumer.Decoder<>() {
            @Override
            public TestMessages.Received decode(Frame.Deliver delivery) {
                TestMessages.Received m = TestMessages.RECEIVED.decode(delivery);
                if (m.text.equals(text)) {
                    throw new MalformedFrameException("the test's decoder cannot read it");
                }
                return m;
            }

            @Override
            public String messageId(TestMessages.Received message) {
                return null;
            }

            @Override
            public void markRedelivered(TestMessages.Received message) {
            }
        };
    }
}
