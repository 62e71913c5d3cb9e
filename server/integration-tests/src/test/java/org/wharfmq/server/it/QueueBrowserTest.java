package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.IllegalStateException;
import javax.jms.InvalidDestinationException;
import javax.jms.InvalidSelectorException;
import javax.jms.JMSContext;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.QueueBrowser;
import javax.jms.Session;
import javax.jms.TemporaryQueue;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.NoSuchElementException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * JMS 2.0 QueueBrowser (javadoc and the "queue browser" part of the point-to-point chapter): a browser looks at the messages on a queue without removing them,
 * in the order a consumer would get them, optionally filtered by a selector. Here the browse is checked against
 * the queue's real state: exact content, order, no consumption, expiry, and paging through a deep queue.
 */
@Timeout(60)
class QueueBrowserTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    @Test
    void seesExactlyTheWaitingMessagesInDeliveryOrderWithoutConsumingThem() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("browse"));
        MessageProducer producer = session.createProducer(queue);
        producer.send(session.createTextMessage("low-1"), DeliveryMode.NON_PERSISTENT, 1, 0);
        producer.send(session.createTextMessage("high-1"), DeliveryMode.NON_PERSISTENT, 8, 0);
        producer.send(session.createTextMessage("low-2"), DeliveryMode.NON_PERSISTENT, 1, 0);
        producer.send(session.createTextMessage("high-2"), DeliveryMode.PERSISTENT, 8, 0);
        producer.send(session.createTextMessage("normal"), DeliveryMode.NON_PERSISTENT, 4, 0);
        List<String> deliveryOrder = List.of("high-1", "high-2", "normal", "low-1", "low-2");

        QueueBrowser browser = session.createBrowser(queue);
        assertEquals(queue, browser.getQueue());
        assertEquals(deliveryOrder, texts(browser.getEnumeration()));
        assertEquals(deliveryOrder, texts(browser.getEnumeration()), "a second enumeration sees the same");
        assertEquals(5, WHARF.depth(queue.getQueueName()), "browsing consumed nothing");
        assertFalse(texts(browser.getEnumeration()).isEmpty());

        MessageConsumer consumer = session.createConsumer(queue);
        assertEquals(deliveryOrder, Receive.texts(consumer, 5), "consumers get them in the order browsed, not redelivered");
    }

    @Test
    void browsedMessagesAreNotLockedAndDeliveredOnesAreNotShown() throws Exception {
        Connection connection = WHARF.connect(Transport.VM);
        Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("browse-unlocked"));
        Send.texts(connection, queue.getQueueName(), "a", "b", "c");
        MessageConsumer consumer = session.createConsumer(queue);
        assertEquals("a", Receive.nextText(consumer).getText());
        consumer.close(); // b and c, prefetched but not consumed, go back; a stays delivered, unacknowledged
        Session other = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        List<String> seen = texts(other.createBrowser(queue).getEnumeration());
        assertEquals(List.of("b", "c"), seen, "'a' is delivered (unacknowledged), so it is not waiting");

        Enumeration<?> open = other.createBrowser(queue).getEnumeration();
        assertTrue(open.hasMoreElements());
        // a consumer takes the messages the open enumeration has already been shown
        Session third = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertEquals(List.of("b", "c"), Receive.texts(third.createConsumer(queue), 2));
    }

    @Test
    void selectorFiltersAndMessagesArrivingLaterAreNotShown() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("browse-selector"));
        MessageProducer producer = session.createProducer(queue);
        for (int i = 0; i < 10; i++) {
            TextMessage m = session.createTextMessage("m" + i);
            m.setIntProperty("n", i);
            producer.send(m);
        }
        QueueBrowser browser = session.createBrowser(queue, "n >= 3 AND n < 7");
        assertEquals("n >= 3 AND n < 7", browser.getMessageSelector());
        Enumeration<?> enumeration = browser.getEnumeration();
        TextMessage late = session.createTextMessage("late");
        late.setIntProperty("n", 5);
        producer.send(late);
        assertEquals(List.of("m3", "m4", "m5", "m6"), texts(enumeration), "what was waiting when the browse began");
        assertEquals(List.of("m3", "m4", "m5", "m6", "late"), texts(browser.getEnumeration()));
    }

    @Test
    void expiredMessagesAreSkipped() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("browse-expiry"));
        MessageProducer producer = session.createProducer(queue);
        producer.send(session.createTextMessage("keep-1"));
        TextMessage expiring = session.createTextMessage("expire");
        producer.send(expiring, DeliveryMode.NON_PERSISTENT, 4, 1);
        producer.send(session.createTextMessage("keep-2"));
        // expiry is an absolute time: wait for the clock to reach it (1 ms) rather than sleeping a guess
        while (System.currentTimeMillis() < expiring.getJMSExpiration()) {
            Thread.onSpinWait();
        }
        assertEquals(List.of("keep-1", "keep-2"), texts(session.createBrowser(queue).getEnumeration()));
        assertEquals(2, WHARF.depth(queue.getQueueName()), "the browse discarded the expired message, as a consumer would");
    }

    @Test
    void aDeepQueueIsBrowsedPageByPage() throws Exception {
        int depth = 5_000;
        String name = WHARF.queueName("browse-deep");
        Connection producing = WHARF.connect(Transport.TCP);
        Session session = producing.createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = session.createProducer(session.createQueue(name));
        for (int i = 0; i < depth; i++) {
            TextMessage m = session.createTextMessage("m" + i);
            m.setIntProperty("n", i);
            producer.send(m, DeliveryMode.NON_PERSISTENT, i % 2 == 0 ? 6 : 3, 0);
        }
        session.commit();

        // a small window: the browse needs hundreds of pages
        Connection browsing = WHARF.track(new WharfConnectionFactory(WHARF.server().tcpUrl() + "?prefetch=16").createConnection());
        browsing.start();
        Session browserSession = browsing.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Enumeration<?> enumeration = browserSession.createBrowser(browserSession.createQueue(name)).getEnumeration();
        int count = 0;
        int expectedN = 0;
        while (enumeration.hasMoreElements()) {
            Message m = (Message) enumeration.nextElement();
            assertEquals(expectedN, m.getIntProperty("n"), "priority 6 (even) first, then 3 (odd), FIFO within each");
            expectedN += 2;
            if (expectedN == depth) {
                expectedN = 1;
            }
            count++;
        }
        assertEquals(depth, count);
        assertThrows(NoSuchElementException.class, enumeration::nextElement);
        assertEquals(depth, WHARF.depth(name));
    }

    /** The wire exchange itself: a browse never runs ahead of its credit, and PULL_DONE alone marks the end. */
    @Test
    void theServerSendsNoMoreThanTheCreditAndEndsWithAnEmptyPull() throws Exception {
        String name = WHARF.queueName("browse-wire");
        Send.texts(WHARF.connect(Transport.TCP), name, "1", "2", "3", "4", "5", "6", "7");
        try (RawFrameClient raw = RawFrameClient.connect(WHARF.server().tcpPort())) {
            raw.handshake();
            raw.send(new Frame.CreateSession(1, 1, false, Session.AUTO_ACKNOWLEDGE));
            assertEquals(new Frame.Ok(1), raw.nextFrame());
            raw.send(new Frame.CreateConsumer(2, 1, 9, WireDestination.queue(name), null, 3, Frame.CONSUMER_BROWSER, null));
            assertEquals(new Frame.Ok(2), raw.nextFrame());
            expectBrowsed(raw, 3);
            raw.send(new Frame.Pull(9, 1));
            expectBrowsed(raw, 1); // had the server run past its credit, this would be the 5th of a flood
            assertEquals(new Frame.PullDone(9, 1), raw.nextFrame());
            raw.send(new Frame.Credit(9, 2));
            expectBrowsed(raw, 1); // credit 3 - 4 + 2 = 1
            raw.send(new Frame.Pull(9, 2));
            expectBrowsed(raw, 1);
            assertEquals(new Frame.PullDone(9, 2), raw.nextFrame());
            raw.send(new Frame.Pull(9, 3));
            expectBrowsed(raw, 1);
            assertEquals(new Frame.PullDone(9, 3), raw.nextFrame());
            raw.send(new Frame.Pull(9, 4));
            assertEquals(new Frame.PullDone(9, 4), raw.nextFrame(), "all 7 shown: an empty PULL ends the browse");
            raw.send(new Frame.CloseConsumer(3, 1, 9, 0));
            assertEquals(new Frame.Ok(3), raw.nextFrame());
        }
        assertEquals(7, WHARF.depth(name));
    }

    @Test
    void invalidQueueOrSelectorFailsAtCreateBrowser() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThrows(InvalidSelectorException.class, () -> session.createBrowser(session.createQueue("ANY"), "n >"));
        assertThrows(InvalidDestinationException.class, () -> session.createBrowser(null));
        TemporaryQueue gone = session.createTemporaryQueue();
        gone.delete();
        assertThrows(InvalidDestinationException.class, () -> session.createBrowser(gone));
    }

    @Test
    void closedBrowserAndEnumerationRules() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("browse-close"));
        Send.texts(WHARF.connect(Transport.TCP), queue.getQueueName(), "x", "y");
        QueueBrowser browser = session.createBrowser(queue);
        Enumeration<?> enumeration = browser.getEnumeration();
        assertTrue(enumeration.hasMoreElements());
        browser.close();
        assertFalse(enumeration.hasMoreElements(), "closing the browser ends its enumerations");
        assertThrows(IllegalStateException.class, browser::getEnumeration);
        assertThrows(IllegalStateException.class, browser::getQueue);
        QueueBrowser second = session.createBrowser(queue);
        session.close();
        assertThrows(IllegalStateException.class, second::getEnumeration, "closed with its session");
    }

    @Test
    void jmsContextBrowses() throws Exception {
        try (JMSContext context = WHARF.factory(Transport.VM).createContext()) {
            Queue queue = context.createQueue(WHARF.queueName("browse-context"));
            context.createProducer().send(queue, "one").send(queue, "two");
            assertEquals(List.of("one", "two"), texts(context.createBrowser(queue).getEnumeration()));
        }
    }

    private static void expectBrowsed(RawFrameClient raw, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            Frame.Deliver d = assertInstanceOf(Frame.Deliver.class, raw.nextFrame());
            assertEquals(0, d.deliveryId(), "a browsed message is not a delivery");
            d.message().release();
        }
    }

    private static List<String> texts(Enumeration<?> enumeration) throws Exception {
        List<String> texts = new ArrayList<>();
        for (Object o : Collections.list(enumeration)) {
            texts.add(((TextMessage) o).getText());
        }
        return texts;
    }
}
