package org.wharfmq.client.core;

import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The core client's browse against a real server, through the core's API alone: every message shown in order, page by
 * page as credit goes back and PULLs ask for more, the end of the queue, nothing consumed, and a refused selector.
 */
class CoreBrowserTest extends ConnectedTest {
    private static final WireDestination QUEUE = WireDestination.queue("CORE.BROWSED");

    @Test
    void showsEveryMessageInOrderPageByPageAndConsumesNone() throws Exception {
        connection.start();
        CoreSession session = new CoreSession(connection, CoreSettlement.CLIENT_ACKNOWLEDGE, 1, false, CoreSession.Hooks.NONE);
        session.open();
        int producer = connection.nextProducerId();
        session.createProducer(producer, QUEUE);
        for (int i = 1; i <= 5; i++) {
            TestMessages.send(session, producer, QUEUE, "b" + i);
        }

        // a window of 2: the other three come only as credit goes back and PULLs ask
        CoreBrowser browse = CoreBrowser.open(connection, session.id(), QUEUE, null, 2, 1);
        for (int i = 1; i <= 5; i++) {
            Frame.Deliver d = browse.take();
            assertNotNull(d, "b" + i + " was not shown");
            assertEquals("b" + i, TestMessages.text(d));
            browse.consumed();
        }
        assertNull(browse.take(), "the end of the queue");

        CoreConsumer consumer = session.createConsumer(new CoreConsumer.Spec(session.id(), QUEUE, null, 10, 0, null), 5);
        Frame.Deliver first = consumer.take(TimeUnit.SECONDS.toNanos(10));
        assertNotNull(first, "browsing consumed the messages");
        assertEquals("b1", TestMessages.text(first));
    }

    @Test
    void aSelectorTheServerCannotParseIsRefusedWithItsCode() throws Exception {
        CoreSession session = new CoreSession(connection, CoreSettlement.AUTO_ACKNOWLEDGE, 1, false, CoreSession.Hooks.NONE);
        session.open();
        ClientException refused = assertThrows(ClientException.class,
                () -> CoreBrowser.validate(connection, session.id(), QUEUE, "price >"));
        assertEquals(ErrorCode.INVALID_SELECTOR, refused.code(), refused.getMessage());
    }
}
