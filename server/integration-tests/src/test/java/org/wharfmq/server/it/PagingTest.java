package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.management.QueueStatus;
import org.wharfmq.server.queue.LocalQueue;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Paging (the policy page, docs/resilience.md): past its memory budget a queue keeps new messages on disk and reads
 * them back in order as its consumers catch up; consumers with selectors find their matches among them; the depth
 * counts them, and administrators' clear, browse and delete see them.
 */
@Timeout(60)
class PagingTest {

    /** About sixteen 1 KB messages in memory: the rest of each test's messages are paged. */
    private static final long BUDGET = 24_000;
    private static final String BODY = "p".repeat(1000);
    private static final int MESSAGES = 2_000;
    /** About twenty paged 1 KB messages. */
    private static final long DISK_BUDGET = 20_000;
    private static final int SMALL_WINDOW = 8192;
    /** A queue's own memory budget smaller than any message: it pages every message, and reads back one at a time. */
    private static final long ALL_PAGED = 1;

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.configured(c -> c
            .pagingQueue("PAGED.ORDER", BUDGET, 0, MemoryPolicy.BLOCK)
            .pagingQueue("PAGED.ADMIN", BUDGET, 0, MemoryPolicy.BLOCK)
            .pagingQueue("PAGED.REPLIES", BUDGET, 0, MemoryPolicy.BLOCK)
            .pagingQueue("PAGED.EXPIRY", BUDGET, 0, MemoryPolicy.BLOCK)
            .pagingQueue("PAGED.FAIL", BUDGET, DISK_BUDGET, MemoryPolicy.FAIL)
            .pagingQueue("PAGED.BLOCK", BUDGET, DISK_BUDGET, MemoryPolicy.BLOCK)
            .pagingQueue("PAGED.SELECTED", BUDGET, 0, MemoryPolicy.BLOCK)
            .pagingQueue("PAGED.SELECTED.LATER", BUDGET, 0, MemoryPolicy.BLOCK)
            .pagingQueue("PAGED.NOTHING", BUDGET, 0, MemoryPolicy.BLOCK)
            .pagingQueue("PAGED.OTHER", BUDGET, 0, MemoryPolicy.BLOCK)
            .pagingQueue("PAGED.LATE", ALL_PAGED, 0, MemoryPolicy.BLOCK)
            .pagingQueue("PAGED.HELD", BUDGET, 0, MemoryPolicy.BLOCK)
            .producerWindowBytes(4096));

    /**
     * A server whose whole memory budget is small, with the default policy: its queues created by use page. While
     * the budget is spent each session may send one producer window more (docs/protocol.md, "Producer flow
     * control"), so the window is small here: what the server holds in memory stays under its budget plus that.
     */
    @RegisterExtension
    static final WharfServerExtension SMALL = WharfServerExtension.configured(c -> c.maxMemoryBytes(2 * BUDGET)
            .producerWindowBytes(SMALL_WINDOW));

    /**
     * A server whose memory budget is a few MiB, and whose producer windows are smaller than a transaction: a
     * transacted producer needs the server's credit before its commit.
     */
    @RegisterExtension
    static final WharfServerExtension TRANSACTED = WharfServerExtension.configured(c -> c
            .maxMemoryBytes(2_000_000).producerWindowBytes(16_384));

    @Test
    void aTransactedProducerToAPagingQueueIsNotHeldBackByTheServersBudgetItsCommittedBacklogSpends() throws Exception {
        // transactions of 100 KB, beyond one producer window, well within the server's budget; no consumer. When the
        // queue paged only once the budget was spent, the committed backlog spent it, the server held the producer's
        // credit back, and the transaction in progress could never commit to let its messages page: it waited for ever
        Connection connection = TRANSACTED.connect(Transport.TCP);
        Session sending = connection.createSession(true, Session.SESSION_TRANSACTED);
        String name = TRANSACTED.queueName("transacted");
        MessageProducer producer = sending.createProducer(sending.createQueue(name));
        int messages = 5_000; // 5 MB of bodies: two and a half times the budget
        for (int n = 0; n < messages; n++) {
            TextMessage m = sending.createTextMessage(BODY);
            m.setIntProperty("n", n);
            producer.send(m, n % 2 == 0 ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT, 4, 0);
            if (n % 100 == 99) {
                sending.commit();
            }
        }
        LocalQueue local = TRANSACTED.server().queueManager().queue(name);
        assertTrue(local.paged() > messages / 2, () -> "paged " + local.paged() + " of " + messages);
        long used = TRANSACTED.server().queueManager().memoryBudget().usedBytes();
        assertTrue(used < 2_000_000, () -> "the queue holds " + used + " bytes in memory, past the server's budget");

        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(session.createQueue(name));
        for (int n = 0; n < messages; n++) {
            assertEquals(n, Receive.next(consumer).getIntProperty("n"), "out of order");
        }
        Receive.nothingMore(consumer);
    }

    @Test
    void aTransactedConsumerHoldingMoreThanTheQueuesBudgetGetsThePagedMessagesItsCommitWaitsFor() throws Exception {
        // a consumer that receives every message before it commits holds them all, delivered and unacknowledged: once
        // that was half the queue's budget or more, the paged ones behind them were never read back, and it waited for
        // ever for a message that only its commit would have let come
        Connection connection = WHARF.connect(Transport.TCP);
        int count = 100; // 100 KB of bodies, four times the queue's budget
        fill(connection, "PAGED.HELD", count);
        LocalQueue local = WHARF.server().queueManager().queue("PAGED.HELD");
        assertTrue(local.paged() > count / 2, () -> "paged " + local.paged() + " of " + count);

        Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
        MessageConsumer consumer = session.createConsumer(session.createQueue("PAGED.HELD"));
        for (int n = 0; n < count; n++) {
            assertEquals(n, Receive.next(consumer).getIntProperty("n"), "out of order");
        }
        session.commit();
        assertEquals(0, WHARF.depth("PAGED.HELD"), "every message received once and committed");
        Receive.nothingMore(consumer);
    }

    @Test
    void aQueuePastItsBudgetPagesAndDrainsInOrderPerPriorityPersistentAndNot() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Session sending = connection.createSession(true, Session.SESSION_TRANSACTED); // one journal sync per 100
        Queue queue = sending.createQueue("PAGED.ORDER");
        MessageProducer producer = sending.createProducer(queue);
        for (int n = 0; n < MESSAGES; n++) {
            TextMessage m = sending.createTextMessage(BODY);
            m.setIntProperty("n", n);
            int priority = n % 3 == 0 ? 7 : 4;
            producer.send(m, n % 2 == 0 ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT, priority, 0);
            if (n % 100 == 99) {
                sending.commit();
            }
        }
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        LocalQueue local = WHARF.server().queueManager().queue("PAGED.ORDER");
        assertTrue(local.paged() > MESSAGES / 2, () -> "paged " + local.paged() + " of " + MESSAGES);
        assertEquals(MESSAGES, WHARF.depth("PAGED.ORDER"), "the depth counts the paged messages");
        // the paging thread lets the bytes of the paged messages go as it writes them, and reads none back while the
        // queue has no consumer: once it has written them (an administrator's browse runs on it after) the memory
        // figure stands still (it was above 0 while a queue that held nothing read a batch back for nobody)
        WHARF.server().management().browse("PAGED.ORDER", null, 1, 16);
        QueueStatus status = WHARF.server().management().queue("PAGED.ORDER"); // what wharf admin and metrics show
        assertEquals(local.paged(), status.paged());
        assertEquals(local.pagedBytes(), status.pagedBytes());
        assertEquals(local.heldBytes(), status.memoryBytes(), () -> "in memory " + status);

        MessageConsumer consumer = session.createConsumer(queue);
        Map<Integer, Integer> lastOfPriority = new HashMap<>();
        for (int i = 0; i < MESSAGES; i++) {
            Message m = Receive.next(consumer);
            int n = m.getIntProperty("n");
            Integer before = lastOfPriority.put(m.getJMSPriority(), n);
            assertTrue(before == null || before < n, () -> "message " + n + " after " + before + " of its priority");
            assertEquals(n % 2 == 0 ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT, m.getJMSDeliveryMode());
            assertEquals(BODY, ((TextMessage) m).getText());
        }
        Receive.nothingMore(consumer);
        Send.barrier(session);
        assertEquals(0, WHARF.depth("PAGED.ORDER"));
        assertEquals(0, local.paged());
        assertEquals(0, local.pagedBytes());
    }

    @Test
    void aCorrelationIdConsumerFindsItsReplyOnAPagedReplyQueue() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Session sending = connection.createSession(true, Session.SESSION_TRANSACTED);
        Queue replies = sending.createQueue("PAGED.REPLIES");
        MessageProducer producer = sending.createProducer(replies);
        int dead = 1_000; // replies to a requester that is gone: a backlog that pages
        for (int n = 0; n < dead; n++) {
            TextMessage reply = sending.createTextMessage(BODY);
            reply.setJMSCorrelationID(n == dead / 2 ? "early" : "dead-" + n);
            producer.send(reply, n % 2 == 0 ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT, 4, 0);
            if (n % 10 == 9) {
                sending.commit();
            }
        }
        LocalQueue queue = WHARF.server().queueManager().queue("PAGED.REPLIES");
        assertTrue(queue.paged() > dead / 2, () -> "paged " + queue.paged());

        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer early = session.createConsumer(replies, "JMSCorrelationID = 'early'");
        assertEquals("early", Receive.next(early).getJMSCorrelationID(), "the reply paged before its requester asked");

        MessageConsumer late = session.createConsumer(replies, "JMSCorrelationID = 'late'");
        TextMessage reply = sending.createTextMessage(BODY);
        reply.setJMSCorrelationID("late");
        producer.send(reply);
        sending.commit();
        assertEquals("late", Receive.next(late).getJMSCorrelationID(), "the reply paged while its requester waited");
        Receive.nothingMore(early);
        Send.barrier(session);
        assertEquals(dead - 1, WHARF.depth("PAGED.REPLIES"), "the dead requester's replies are all still there");
    }

    @Test
    void aSelectorConsumerFindsEveryPagedMatchBehindNonMatchingMessagesInMemoryAndOnDisk() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        int count = 600;
        fill(connection, "PAGED.SELECTED", count, PagingTest::everyTenthBAfterTheFirst100);
        LocalQueue queue = WHARF.server().queueManager().queue("PAGED.SELECTED");
        assertTrue(queue.paged() > count / 2, () -> "paged " + queue.paged());

        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue selected = session.createQueue("PAGED.SELECTED");
        MessageConsumer kindB = session.createConsumer(selected, "kind = 'B'");
        int matches = 0;
        for (int n = 0; n < count; n++) {
            if (everyTenthBAfterTheFirst100(n).equals("B")) {
                Message m = Receive.next(kindB);
                assertEquals(n, m.getIntProperty("n"), "the paged 'B' messages in the order sent");
                matches++;
            }
        }
        Receive.nothingMore(kindB);
        assertEquals(count - matches, WHARF.depth("PAGED.SELECTED"), "the 'A' messages are all still there");

        MessageConsumer all = session.createConsumer(selected);
        for (int n = 0; n < count; n++) {
            if (everyTenthBAfterTheFirst100(n).equals("A")) {
                assertEquals(n, Receive.next(all).getIntProperty("n"), "the rest in order, each once");
            }
        }
        Receive.nothingMore(all);
        assertEquals(0, queue.paged());
    }

    @Test
    void aSelectorConsumerWaitingWhileItsMatchIsPagedReceivesIt() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        int count = 300;
        fill(connection, "PAGED.SELECTED.LATER", count, n -> "A");
        LocalQueue queue = WHARF.server().queueManager().queue("PAGED.SELECTED.LATER");
        long paged = queue.paged();
        assertTrue(paged > count / 2, () -> "paged " + paged);

        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue later = session.createQueue("PAGED.SELECTED.LATER");
        MessageConsumer kindB = session.createConsumer(later, "kind = 'B'");
        ProducerFlowControlTest.awaitTrue(() -> queue.recordsScanned() == paged, "one look at each paged message");
        Receive.nothingMore(kindB);

        Session sending = connection.createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = sending.createProducer(later);
        for (int n = 0; n < 2; n++) {
            TextMessage b = sending.createTextMessage(BODY);
            b.setStringProperty("kind", "B");
            b.setIntProperty("n", count + n);
            producer.send(b);
        }
        sending.commit();
        assertEquals(count, Receive.next(kindB).getIntProperty("n"), "the match sent while it waited");
        assertEquals(count + 1, Receive.next(kindB).getIntProperty("n"));
        Receive.nothingMore(kindB);
        assertEquals(count, WHARF.depth("PAGED.SELECTED.LATER"));
        assertEquals(paged, queue.recordsScanned(), "no paged message was looked at twice");
    }

    @Test
    void aSelectorMatchingNothingLooksAtEachPagedMessageOnceAndHoldsUpNeitherItsQueueNorAnother() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        int count = 600;
        fill(connection, "PAGED.NOTHING", count, PagingTest::everyTenthBAfterTheFirst100);
        fill(connection, "PAGED.OTHER", count, n -> "A");
        LocalQueue queue = WHARF.server().queueManager().queue("PAGED.NOTHING");
        long paged = queue.paged();
        assertTrue(paged > count / 2 && WHARF.server().queueManager().queue("PAGED.OTHER").paged() > count / 2);

        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue nothing = session.createQueue("PAGED.NOTHING");
        MessageConsumer kindZ = session.createConsumer(nothing, "kind = 'Z'");
        ProducerFlowControlTest.awaitTrue(() -> queue.recordsScanned() == paged, "one look at each paged message");

        MessageConsumer other = session.createConsumer(session.createQueue("PAGED.OTHER"));
        for (int n = 0; n < count; n++) { // many turns of the paging thread, each after any the scan queued again
            assertEquals(n, Receive.next(other).getIntProperty("n"), "another queue pages as before");
        }
        Receive.nothingMore(other);
        assertEquals(paged, queue.recordsScanned(), "once through, the scan waits for new paged messages");

        MessageConsumer kindB = session.createConsumer(nothing, "kind = 'B'");
        for (int n = 0; n < count; n++) {
            if (everyTenthBAfterTheFirst100(n).equals("B")) {
                assertEquals(n, Receive.next(kindB).getIntProperty("n"), "another selector of the same queue");
            }
        }
        MessageConsumer all = session.createConsumer(nothing);
        for (int n = 0; n < count; n++) {
            if (everyTenthBAfterTheFirst100(n).equals("A")) {
                assertEquals(n, Receive.next(all).getIntProperty("n"), "a consumer without a selector, in order");
            }
        }
        Receive.nothingMore(all);
        Receive.nothingMore(kindZ);
        assertTrue(queue.recordsScanned() <= 2 * paged, () -> "looked at " + queue.recordsScanned() + " of " + paged);
    }

    /** 'A', but 'B' for every tenth message from the 100th on: the first ones in memory all are 'A'. */
    private static String everyTenthBAfterTheFirst100(int n) {
        return n >= 100 && n % 10 == 5 ? "B" : "A";
    }

    @Test
    void aPagedMessageThatExpiredOnDiskIsDiscardedWhenReadBackNeverDelivered() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Session sending = connection.createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = sending.createProducer(sending.createQueue("PAGED.EXPIRY"));
        int count = 300;
        long lastExpiration = 0;
        for (int n = 0; n < count; n++) {
            TextMessage m = sending.createTextMessage(BODY);
            m.setIntProperty("n", n);
            producer.send(m, n % 2 == 0 ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT, 4,
                    n % 3 == 0 ? 1_500 : 0); // every third expires 1.5 s after it is sent, on disk by then
            lastExpiration = Math.max(lastExpiration, m.getJMSExpiration());
            if (n % 100 == 99) {
                sending.commit();
            }
        }
        LocalQueue queue = WHARF.server().queueManager().queue("PAGED.EXPIRY");
        assertTrue(queue.paged() > count / 2, () -> "paged " + queue.paged());
        long giveUp = System.nanoTime() + 10_000_000_000L;
        while (System.currentTimeMillis() <= lastExpiration) { // a condition on the clock, not a guessed duration
            assertTrue(System.nanoTime() < giveUp, "the clock did not pass " + lastExpiration);
            Thread.onSpinWait();
        }
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(sending.createQueue("PAGED.EXPIRY"));
        for (int n = 0; n < count; n++) {
            if (n % 3 != 0) {
                assertEquals(n, Receive.next(consumer).getIntProperty("n"), "an expired message was delivered");
            }
        }
        Receive.nothingMore(consumer);
        Send.barrier(session);
        assertEquals(0, WHARF.depth("PAGED.EXPIRY"), "the expired ones left the depth as they were read back");
    }

    @Test
    void pastItsDiskBudgetAQueueWithPageFullPolicyFailRefusesTheSendAndSaysWhy() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(session.createQueue("PAGED.FAIL")); // persistent: answered
        LocalQueue queue = WHARF.server().queueManager().queue("PAGED.FAIL");
        JMSException refused = null;
        int sent = 0;
        while (refused == null) {
            assertTrue(sent < 200, "the disk budget never refused a send");
            try {
                producer.send(session.createTextMessage(BODY));
                sent++;
            } catch (JMSException e) {
                refused = e;
            }
        }
        assertTrue(queue.paged() > 0 && queue.pagedBytes() <= DISK_BUDGET, () -> "paged " + queue.pagedBytes());
        assertEquals("QUEUE_FULL", refused.getErrorCode());
        String why = refused.getMessage();
        for (String named : List.of("disk budget of queue 'PAGED.FAIL'", "holds " + queue.pagedBytes() + " bytes",
                "may hold " + DISK_BUDGET, "setting maxPageBytes of queue 'PAGED.FAIL'", "pageFullPolicy, fail")) {
            assertTrue(why.contains(named), () -> "the refusal names " + named + ": " + why);
        }
        MessageConsumer consumer = session.createConsumer(session.createQueue("PAGED.FAIL"));
        for (int i = 0; i < sent; i++) {
            Receive.next(consumer);
        }
        Send.barrier(session);
        producer.send(session.createTextMessage(BODY)); // its consumer read the paged messages back: room again
        Receive.next(consumer);
    }

    @Test
    void pastItsDiskBudgetAQueueWithPageFullPolicyBlockSlowsItsProducerAndLosesNothing() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        LocalQueue queue = WHARF.server().queueManager().queue("PAGED.BLOCK");
        int count = 100;
        java.util.concurrent.CompletableFuture<Void> producing = new java.util.concurrent.CompletableFuture<>();
        Thread producerThread = new Thread(() -> {
            try {
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageProducer p = session.createProducer(session.createQueue("PAGED.BLOCK"));
                p.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
                for (int i = 0; i < count; i++) {
                    TextMessage m = session.createTextMessage(BODY);
                    m.setIntProperty("n", i);
                    p.send(m);
                }
                Send.barrier(session);
                producing.complete(null);
            } catch (Throwable e) {
                producing.completeExceptionally(e);
            }
        }, "paging-producer");
        producerThread.setDaemon(true);
        producerThread.start();
        ProducerFlowControlTest.awaitTrue(() -> queue.producersHeldBack() > 0, "the producer's credit is held back");
        assertTrue(!producing.isDone(), "the producer cannot have sent everything: the disk budget would hold it all");
        long bound = DISK_BUDGET + 4096 + 2 * BODY.length();
        assertTrue(queue.pagedBytes() <= bound, () -> "paged " + queue.pagedBytes() + " bytes, over " + bound);

        Session consuming = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = consuming.createConsumer(consuming.createQueue("PAGED.BLOCK"));
        for (int i = 0; i < count; i++) {
            assertEquals(i, Receive.next(consumer).getIntProperty("n"));
        }
        producing.get(10, java.util.concurrent.TimeUnit.SECONDS);
        Receive.nothingMore(consumer);
    }

    @Test
    void anAdministratorsBrowseClearAndDeleteSeeThePagedMessages() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        fill(connection, "PAGED.ADMIN", 500);
        LocalQueue admin = WHARF.server().queueManager().queue("PAGED.ADMIN");
        assertTrue(admin.paged() > 0, "nothing was paged");

        List<org.wharfmq.server.management.BrowsedMessage> browsed =
                WHARF.server().management().browse("PAGED.ADMIN", null, 1000, 16);
        assertEquals(500, browsed.size(), "an administrator's browse shows the paged messages too");
        for (int n = 0; n < 500; n++) {
            assertEquals(n, browsed.get(n).properties().get("n"), "browsed in order");
        }
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        java.util.Enumeration<?> enumeration = session.createBrowser(session.createQueue("PAGED.ADMIN")).getEnumeration();
        for (int n = 0; n < 500; n++) {
            assertTrue(enumeration.hasMoreElements(), "a QueueBrowser shows the paged messages too: " + n + " of 500");
            assertEquals(n, ((Message) enumeration.nextElement()).getIntProperty("n"), "browsed in order");
        }
        assertTrue(!enumeration.hasMoreElements(), "the browse shows each message once");
        assertEquals(500, WHARF.depth("PAGED.ADMIN"), "browsing takes nothing");

        assertEquals(500, WHARF.server().management().clearQueue("PAGED.ADMIN").removed());
        assertEquals(0, WHARF.depth("PAGED.ADMIN"));
        assertEquals(0, admin.paged());

    }

    @Test
    void byDefaultAQueueCreatedByUsePagesWhenTheServersBudgetIsSpentAndItsDeletionForgetsThem() throws Exception {
        String name = SMALL.queueName("deleted");
        fill(SMALL.connect(Transport.TCP), name, 500);
        LocalQueue queue = SMALL.server().queueManager().queue(name);
        assertTrue(queue.paged() > 0, "nothing was paged");
        long used = SMALL.server().queueManager().memoryBudget().usedBytes();
        assertTrue(used <= 2 * BUDGET + SMALL_WINDOW, () -> "the server holds " + used + " bytes in memory, more than"
                + " its budget of " + 2 * BUDGET + " and the one producer window of " + SMALL_WINDOW + " it may be past it");
        assertEquals(500, SMALL.server().management().deleteQueue(name, true));
        assertEquals(0, queue.paged());
        assertEquals(0, SMALL.server().queueManager().pager().diskBudget().usedBytes());
    }

    /**
     * A queue nobody consumes from keeps what it pages on disk: once the paging thread has written it, the queue holds
     * nothing in memory, and an administrator's browse reads none back into it (before, a queue that held nothing read
     * a batch back at once, for nobody, holding the server's memory budget with it); `display queue` still shows the
     * age of its oldest message. A consumer that comes later has them read back and gets every one, in order.
     */
    @Test
    void aQueueNobodyConsumesFromKeepsItsPagedMessagesOnDiskUntilAConsumerComes() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        int count = 100;
        fill(connection, "PAGED.LATE", count);
        LocalQueue queue = WHARF.server().queueManager().queue("PAGED.LATE");
        assertStaysOnDisk(WHARF.server(), "PAGED.LATE", count, count);
        Session browsing = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        java.util.Enumeration<?> browsed = browsing.createBrowser(browsing.createQueue("PAGED.LATE")).getEnumeration();
        for (int n = 0; n < count; n++) {
            assertTrue(browsed.hasMoreElements(), "a QueueBrowser shows the paged messages: " + n + " of " + count);
            assertEquals(n, ((Message) browsed.nextElement()).getIntProperty("n"), "browsed in order");
        }
        assertTrue(!browsed.hasMoreElements(), "the browse shows each message once");
        browsing.close();
        assertEquals(0, queue.heldBytes(), "a browse reads the page files: nothing read back");

        receiveInOrder(connection, "PAGED.LATE", count, 1);
        assertEquals(0, queue.paged());
        assertEquals(0, WHARF.depth("PAGED.LATE"));
    }

    /**
     * After a restart, the persistent messages of a queue nobody consumes from are paged again as they are recovered
     * and stay on disk, nothing read back for nobody, until a consumer comes: it gets every one, in order.
     */
    @Test
    void recoveredMessagesOfAQueueNobodyConsumesFromStayOnDiskUntilAConsumerComes() throws Exception {
        try (TestServer server = TestServer.start(c -> c.pagingQueue("LATE", ALL_PAGED, 0, MemoryPolicy.BLOCK))) {
            int count = 60;
            Connection sending = new WharfConnectionFactory(server.server().tcpUrl()).createConnection();
            try {
                fill(sending, "LATE", count); // the even ones persistent
            } finally {
                sending.close();
            }
            server.restart();
            assertStaysOnDisk(server.server(), "LATE", count, count / 2);

            Connection receiving = new WharfConnectionFactory(server.server().tcpUrl()).createConnection();
            try {
                receiving.start();
                receiveInOrder(receiving, "LATE", count, 2);
            } finally {
                receiving.close();
            }
            assertEquals(0, server.server().queueManager().queue("LATE").paged());
        }
    }

    /**
     * {@code queueName}, whose own budget is {@link #ALL_PAGED}, holds its {@code paged} messages on disk and nothing
     * in memory: asked once an administrator's browse of up to {@code limit} has shown them all, which the paging
     * thread reads after the queue's turn that wrote them (and would have read one back, before).
     */
    private static void assertStaysOnDisk(WharfServer server, String queueName, int limit, int paged) {
        assertEquals(paged, server.management().browse(queueName, null, limit, 16).size(), "browsed from the disk");
        LocalQueue queue = server.queueManager().queue(queueName);
        assertEquals(paged, queue.paged(), "every message paged, none read back for nobody");
        assertEquals(0, queue.heldBytes(), "nothing held in memory once written");
        assertNotNull(server.management().queue(queueName).oldestMessageAgeMillis(),
                "display queue shows the age of the oldest message, on disk");
    }

    /** Receives messages 0, {@code step}, 2 {@code step}... below {@code count} from {@code queueName}, and no more. */
    private static void receiveInOrder(Connection connection, String queueName, int count, int step)
            throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(session.createQueue(queueName));
        for (int n = 0; n < count; n += step) {
            assertEquals(n, Receive.next(consumer).getIntProperty("n"), "in order");
        }
        Receive.nothingMore(consumer);
        Send.barrier(session);
        session.close();
    }

    /**
     * Sends {@code count} messages, half of them persistent, in transactions of 10 (uncommitted messages count against
     * the budgets too, so a transaction must stay well within the small server's); the server has them all then.
     */
    private static void fill(Connection connection, String queueName, int count) throws JMSException {
        fill(connection, queueName, count, n -> "A");
    }

    /** As {@link #fill(Connection, String, int)}, message {@code n} with the property {@code kind} {@code kind(n)}. */
    private static void fill(Connection connection, String queueName, int count, IntFunction<String> kind)
            throws JMSException {
        Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = session.createProducer(session.createQueue(queueName));
        for (int n = 0; n < count; n++) {
            TextMessage m = session.createTextMessage(BODY);
            m.setIntProperty("n", n);
            m.setStringProperty("kind", kind.apply(n));
            producer.send(m, n % 2 == 0 ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT, 4, 0);
            if (n % 10 == 9 || n == count - 1) {
                session.commit();
            }
        }
        session.close();
    }
}
