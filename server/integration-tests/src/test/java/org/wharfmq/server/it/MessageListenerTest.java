package org.wharfmq.server.it;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageListener;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Asynchronous delivery: a listener gets every message in order, on a thread where it may make blocking calls on
 * its own session (so not the connection's I/O thread), and never two at once for one session.
 */
@Timeout(60)
class MessageListenerTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private static final int MESSAGES = 500;
    private static final int ECHO_EVERY = 100;

    @ParameterizedTest
    @EnumSource(Transport.class)
    void listenerGetsAllMessagesInOrderAndMayBlockOnItsSession(Transport transport) throws Exception {
        Connection connection = WHARF.connect(transport);
        String queueName = WHARF.queueName("listener");
        String echoName = WHARF.queueName("listener.echo");
        Session producerSession = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = producerSession.createProducer(producerSession.createQueue(queueName));
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        // half the messages wait on the queue before the listener exists, half arrive while it runs
        for (int i = 0; i < MESSAGES / 2; i++) {
            producer.send(sequenced(producerSession, i));
        }

        Session listenerSession = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer echo = listenerSession.createProducer(listenerSession.createQueue(echoName));
        echo.setDeliveryMode(DeliveryMode.PERSISTENT);
        List<Integer> received = Collections.synchronizedList(new ArrayList<>());
        Set<Thread> listenerThreads = ConcurrentHashMap.newKeySet();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch all = new CountDownLatch(MESSAGES);
        MessageConsumer consumer = listenerSession.createConsumer(listenerSession.createQueue(queueName));
        consumer.setMessageListener(message -> {
            try {
                int seq = message.getIntProperty("seq");
                received.add(seq);
                listenerThreads.add(Thread.currentThread());
                if (seq % ECHO_EVERY == 0) {
                    // a persistent send waits for the server's OK, which the I/O thread reads: deadlocks if this
                    // listener runs on that thread
                    echo.send(listenerSession.createTextMessage("echo-" + seq));
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            } finally {
                all.countDown();
            }
        });
        for (int i = MESSAGES / 2; i < MESSAGES; i++) {
            producer.send(sequenced(producerSession, i));
        }

        assertTrue(all.await(30, TimeUnit.SECONDS),
                () -> "listener got " + received.size() + " of " + MESSAGES + " (blocked on its own session?)");
        assertNull(failure.get(), () -> "listener failed: " + failure.get());
        assertEquals(IntStream.range(0, MESSAGES).boxed().toList(), List.copyOf(received), "delivery order");
        assertFalse(listenerThreads.contains(Thread.currentThread()), "listener ran on the test thread");

        Session check = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer echoes = check.createConsumer(check.createQueue(echoName));
        assertEquals(List.of("echo-0", "echo-100", "echo-200", "echo-300", "echo-400"),
                Receive.texts(echoes, MESSAGES / ECHO_EVERY));
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void oneSessionRunsItsListenersOneAtATime(Transport transport) throws Exception {
        Connection connection = WHARF.connect(transport);
        String[] queueNames = {WHARF.queueName("serial.a"), WHARF.queueName("serial.b")};
        Session listenerSession = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        CountDownLatch all = new CountDownLatch(2 * MESSAGES);
        List<List<Integer>> perQueue = List.of(
                Collections.synchronizedList(new ArrayList<>()), Collections.synchronizedList(new ArrayList<>()));
        for (int q = 0; q < 2; q++) {
            List<Integer> sink = perQueue.get(q);
            MessageListener listener = message -> {
                if (running.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                try {
                    sink.add(message.getIntProperty("seq"));
                    // widen the window in which a second delivery thread would be caught
                    for (int spin = 0; spin < 200; spin++) {
                        Thread.onSpinWait();
                    }
                } catch (JMSException e) {
                    throw new IllegalStateException(e);
                } finally {
                    running.decrementAndGet();
                    all.countDown();
                }
            };
            listenerSession.createConsumer(listenerSession.createQueue(queueNames[q])).setMessageListener(listener);
        }

        // two producers on two connections, so both queues fill at the same time
        List<Thread> senders = new ArrayList<>();
        AtomicReference<Throwable> sendFailure = new AtomicReference<>();
        for (String queueName : queueNames) {
            Connection sendConnection = WHARF.connect(transport);
            Thread sender = new Thread(() -> {
                try {
                    Session s = sendConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    MessageProducer p = s.createProducer(s.createQueue(queueName));
                    p.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
                    for (int i = 0; i < MESSAGES; i++) {
                        p.send(sequenced(s, i));
                    }
                } catch (Throwable t) {
                    sendFailure.compareAndSet(null, t);
                }
            }, "sender-" + queueName);
            sender.start();
            senders.add(sender);
        }
        for (Thread sender : senders) {
            sender.join(30_000);
        }
        assertNull(sendFailure.get(), () -> "send failed: " + sendFailure.get());
        assertTrue(all.await(30, TimeUnit.SECONDS), () -> "listeners got " + (2 * MESSAGES - all.getCount())
                + " of " + 2 * MESSAGES);
        assertEquals(0, overlaps.get(), "listeners of one session ran concurrently");
        for (List<Integer> got : perQueue) {
            assertEquals(IntStream.range(0, MESSAGES).boxed().toList(), List.copyOf(got), "per-queue order");
        }
    }

    private static Message sequenced(Session session, int seq) throws JMSException {
        Message m = session.createTextMessage("m" + seq);
        m.setIntProperty("seq", seq);
        return m;
    }
}
