package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.queue.LocalQueue;

import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A queue whose page files cannot be written (docs/resilience.md, "Paging": a full disk, an I/O error): its paging
 * stops without losing what it took, its pageFullPolicy applies to new sends with a refusal that says why, and it
 * pages again by itself once the disk takes its files. Before, the failed write ended the queue's paging for good:
 * every later message waited in memory for a paging turn that never came, and its consumers got none of them.
 *
 * <p>The failure is real, not simulated: a file stands where the queue's page directory is to be created.
 */
@Timeout(60)
class PagingDiskFailureTest {

    /** About sixteen 1 KB messages in memory. */
    private static final long BUDGET = 24_000;
    private static final String BODY = "d".repeat(1000);

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.configured(c -> c
            .pagingQueue("DISK.FIRST", BUDGET, 0, MemoryPolicy.BLOCK)
            .pagingQueue("DISK.FAILS", BUDGET, 0, MemoryPolicy.FAIL)
            .producerWindowBytes(4096));

    @Test
    void aQueueWhosePageFilesCannotBeWrittenRefusesSendsSayingWhyKeepsWhatItTookAndPagesAgainOnceItCan()
            throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Path paging = WHARF.server().config().dataDirectory().resolve("paging");
        // a first queue pages: the paging directory is emptied before its files, queue-1, are made
        MessageProducer first = session.createProducer(session.createQueue("DISK.FIRST"));
        for (int n = 0; n < 100; n++) {
            first.send(session.createTextMessage(BODY)); // persistent: answered
        }
        ProducerFlowControlTest.awaitTrue(() -> Files.isDirectory(paging.resolve("queue-1")), "DISK.FIRST pages");
        // where the second queue's page files go, something else stands: they cannot be written
        Path inTheWay = Files.writeString(paging.resolve("queue-2"), "not a directory");

        LocalQueue fails = WHARF.server().queueManager().queue("DISK.FAILS");
        MessageProducer producer = session.createProducer(session.createQueue("DISK.FAILS"));
        List<Integer> accepted = new ArrayList<>();
        JMSException refused = null;
        for (int n = 0; refused == null; n++) {
            assertTrue(n < 1000, "no send was refused while the page files could not be written");
            try {
                producer.send(numbered(session, n));
                accepted.add(n);
            } catch (JMSException e) {
                refused = e;
            }
        }
        assertEquals("QUEUE_FULL", refused.getErrorCode());
        String why = refused.getMessage();
        for (String named : List.of("queue 'DISK.FAILS' cannot page", "cannot be written or read",
                "wharf admin display queue", "pageFullPolicy, fail", "Free space")) {
            assertTrue(why.contains(named), () -> "the refusal names " + named + ": " + why);
        }
        assertFalse(why.contains(paging.toString()), () -> "a client is not shown the server's disk: " + why);
        assertNotNull(fails.pagingFailure());
        String shown = WHARF.server().management().queue("DISK.FAILS").pagingFailure(); // wharf admin display queue
        assertTrue(shown.contains("Cannot write the paging file") && shown.contains(paging.resolve("queue-2").toString()),
                () -> "display queue shows its administrator the error: " + shown);
        assertTrue(fails.paged() > 0, "the messages it took wait in memory, counted as paged");

        // the disk takes the files again: the next retry pages, and sends are taken again
        Files.delete(inTheWay);
        ProducerFlowControlTest.awaitTrue(() -> fails.pagingFailure() == null, "paging works again");
        for (int n = accepted.get(accepted.size() - 1) + 1000, end = n + 50; n < end; n++) {
            producer.send(numbered(session, n));
            accepted.add(n);
        }
        assertTrue(Files.isDirectory(paging.resolve("queue-2")), "its page files are written");

        MessageConsumer consumer = session.createConsumer(session.createQueue("DISK.FAILS"));
        for (int n : accepted) {
            assertEquals(n, Receive.next(consumer).getIntProperty("n"), "lost, or out of order");
        }
        Receive.nothingMore(consumer);
        Send.barrier(session);
        assertNull(fails.pagingFailure());
        assertNull(WHARF.server().management().queue("DISK.FAILS").pagingFailure());
        assertEquals(0, WHARF.depth("DISK.FAILS"));
    }

    private static TextMessage numbered(Session session, int n) throws JMSException {
        TextMessage m = session.createTextMessage(BODY);
        m.setIntProperty("n", n);
        return m;
    }
}
