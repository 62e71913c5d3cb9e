package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * DUPS_OK_ACKNOWLEDGE consumers draining a deep queue with {@code receive(timeout)} while a producer keeps it deep
 * never get null: a message is always waiting, so a null would be a lost wake-up or lost credit. Issue 19 reported one
 * such null (a receive(5000) after 71,500 messages with 928,000 queued, on a loaded machine, not seen with
 * AUTO_ACKNOWLEDGE); it did not reproduce here (docs/jms-client.md, "DUPS_OK_ACKNOWLEDGE"). The second test shares
 * one connection between two consumer threads and a persistent producer, so that followers of the read turn of both
 * kinds (a receive, a send waiting for its answer) come and go while credit and batched acknowledgements are written.
 * {@code -Dwharf.it.drainMessages=N} makes a longer soak.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class DupsOkDrainTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    /** Messages each consumer drains; half are on the queue before it starts, the producer adds the rest meanwhile. */
    private static final int MESSAGES = Integer.getInteger("wharf.it.drainMessages", 10_000);
    /**
     * A receive's timeout: six times the reported receive(5000)'s, as the producer (another thread) may fall behind
     * the consumers for a while on a loaded machine; a lost wake-up or lost credit still returns null, only later.
     */
    private static final long RECEIVE_MS = 30_000;

    /** Sends {@code count} messages; the last one persistent, whose answer means all before it are on the queue. */
    private static void fill(Session session, MessageProducer producer, int count, int persistentEvery) throws JMSException {
        for (int i = 1; i <= count; i++) {
            boolean persistent = i == count || (persistentEvery > 0 && i % persistentEvery == 0);
            producer.send(session.createTextMessage("m" + i), persistent ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT,
                    4, 0);
        }
    }

    private static CompletableFuture<Void> async(ThrowingRunnable work) {
        return CompletableFuture.runAsync(() -> {
            try {
                work.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static void drain(MessageConsumer consumer, String queueName, int count) throws JMSException {
        for (int i = 0; i < count; i++) {
            Message m = consumer.receive(RECEIVE_MS);
            assertNotNull(m, "receive " + (i + 1) + " of " + count + " returned null with " + WHARF.depth(queueName)
                    + " messages on the queue");
        }
    }

    @Test
    void aDupsOkConsumerDrainingADeepQueueIsNeverLeftWaiting() throws Exception {
        String queueName = WHARF.queueName("dupsok.drain");
        Session producing = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = producing.createProducer(producing.createQueue(queueName));
        fill(producing, producer, MESSAGES / 2, 0);
        CompletableFuture<Void> more = async(() -> fill(producing, producer, MESSAGES - MESSAGES / 2, 0));

        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.DUPS_OK_ACKNOWLEDGE);
        drain(session.createConsumer(session.createQueue(queueName)), queueName, MESSAGES);
        more.get(60, TimeUnit.SECONDS);
    }

    @Test
    void consumersAndAPersistentProducerSharingAConnectionAreNeverLeftWaiting() throws Exception {
        String queueName = WHARF.queueName("dupsok.shared");
        Connection connection = WHARF.connect(Transport.TCP);
        Session producing = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = producing.createProducer(producing.createQueue(queueName));
        fill(producing, producer, MESSAGES, 0);
        List<Session> sessions = List.of(connection.createSession(false, Session.DUPS_OK_ACKNOWLEDGE),
                connection.createSession(false, Session.DUPS_OK_ACKNOWLEDGE));
        List<MessageConsumer> consumers = new ArrayList<>();
        for (Session s : sessions) {
            consumers.add(s.createConsumer(s.createQueue(queueName)));
        }
        // every 50th send persistent: the producer thread too waits for answers on the connection's read turn
        CompletableFuture<Void> more = async(() -> fill(producing, producer, MESSAGES, 50));
        List<CompletableFuture<Void>> drained = new ArrayList<>();
        for (MessageConsumer consumer : consumers) {
            drained.add(async(() -> drain(consumer, queueName, MESSAGES * 3 / 4)));
        }
        for (CompletableFuture<Void> d : drained) {
            d.get(100, TimeUnit.SECONDS);
        }
        more.get(60, TimeUnit.SECONDS);
        for (Session s : sessions) {
            s.close(); // acknowledges what they consumed; what they had prefetched goes back to the queue
        }
        assertEquals(2 * MESSAGES - 2 * (MESSAGES * 3 / 4), countLeft(connection, queueName), "none lost, none twice");
    }

    /** Counts what is left on the queue, taking it (receiveNoWait asks the server, so it stops only at the end). */
    private static int countLeft(Connection connection, String queueName) throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(session.createQueue(queueName));
        int left = 0;
        while (consumer.receiveNoWait() != null) {
            left++;
        }
        return left;
    }
}
