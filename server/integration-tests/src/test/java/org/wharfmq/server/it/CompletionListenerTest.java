package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.jms.CompletionListener;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.IllegalStateException;
import javax.jms.IllegalStateRuntimeException;
import javax.jms.JMSContext;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * JMS 2.0 asynchronous send (section 7.3): the CompletionListener is called once the server has the message, in
 * send order, on a thread that is neither the sender's nor the connection's I/O thread; a failure goes to
 * onException; close, commit and rollback wait for outstanding sends, and are refused from a CompletionListener.
 */
@Timeout(60)
class CompletionListenerTest {

    private static final String SMALL = "SMALL";

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.configured(c -> c.queue(SMALL, 1));

    /** Records callbacks; {@link #done} completes when {@code expected} have arrived. */
    private static final class Recorder implements CompletionListener {
        final List<Object> order = Collections.synchronizedList(new ArrayList<>());
        final Set<String> threads = ConcurrentHashMap.newKeySet();
        final List<Exception> failures = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch done;

        Recorder(int expected) {
            done = new CountDownLatch(expected);
        }

        @Override
        public void onCompletion(Message message) {
            record(message, null);
        }

        @Override
        public void onException(Message message, Exception exception) {
            record(message, exception);
        }

        private void record(Message message, Exception exception) {
            try {
                order.add(message.getIntProperty("seq"));
            } catch (Exception e) {
                order.add(e);
            }
            if (exception != null) {
                failures.add(exception);
            }
            threads.add(Thread.currentThread().getName());
            done.countDown();
        }

        void await() throws InterruptedException {
            assertTrue(done.await(Receive.EXPECTED_MS, TimeUnit.MILLISECONDS), "callbacks missing: " + done.getCount());
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void callbacksComeInSendOrderOnAClientThread(Transport transport) throws Exception {
        Connection connection = WHARF.connect(transport);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("async.order"));
        MessageProducer producer = session.createProducer(queue);
        int count = 300;
        Recorder recorder = new Recorder(count);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Message m = session.createTextMessage("m" + i);
            m.setIntProperty("seq", i);
            // persistent and non-persistent interleaved: both complete through the listener, in order
            producer.send(m, i % 2 == 0 ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT, 4, 0, recorder);
            expected.add(i);
        }
        recorder.await();
        assertEquals(expected, recorder.order);
        assertTrue(recorder.failures.isEmpty(), () -> "unexpected failures " + recorder.failures);
        String sender = Thread.currentThread().getName();
        for (String t : recorder.threads) {
            assertFalse(t.equals(sender), "callback ran on the sending thread");
            assertFalse(t.startsWith("wharf-client-") || t.startsWith("wharf-vm") || t.startsWith("wharf-io"),
                    "callback ran on an I/O thread: " + t);
        }
        assertEquals(count, WHARF.depth(queue.getQueueName()), "completion means the server has every message");
    }

    @Test
    void completionMeansTheMessageIsOnTheQueue() throws Exception {
        Connection connection = WHARF.connect(Transport.VM);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        String queueName = WHARF.queueName("async.visible");
        Queue queue = session.createQueue(queueName);
        CompletableFuture<Long> depthAtCompletion = new CompletableFuture<>();
        Message sent = session.createTextMessage("x");
        session.createProducer(queue).send(sent, new CompletionListener() {
            @Override
            public void onCompletion(Message message) {
                assertSame(sent, message, "the listener gets the message that was sent");
                depthAtCompletion.complete(WHARF.depth(queueName));
            }

            @Override
            public void onException(Message message, Exception exception) {
                depthAtCompletion.completeExceptionally(exception);
            }
        });
        assertEquals(1L, depthAtCompletion.get(Receive.EXPECTED_MS, TimeUnit.MILLISECONDS));
        assertNotNull(sent.getJMSMessageID(), "headers are set on the message when send returns");
    }

    @Test
    void aFailedSendGoesToOnException() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(session.createQueue(SMALL));
        Recorder recorder = new Recorder(2);
        for (int i = 0; i < 2; i++) {
            Message m = session.createTextMessage("fits-" + i);
            m.setIntProperty("seq", i);
            producer.send(m, DeliveryMode.NON_PERSISTENT, 4, 0, recorder);
        }
        recorder.await();
        assertEquals(List.of(0, 1), recorder.order);
        assertEquals(1, recorder.failures.size(), "the queue holds one message; the second send must fail");
        assertTrue(recorder.failures.get(0).getMessage().contains(SMALL), recorder.failures.get(0).getMessage());
        producer.send(session.createTextMessage("after"), DeliveryMode.NON_PERSISTENT, 4, 0);
        MessageConsumer consumer = session.createConsumer(session.createQueue(SMALL));
        assertEquals("fits-0", Receive.nextText(consumer).getText());
    }

    @Test
    void nullCompletionListenerIsRefused() throws Exception {
        Session session = WHARF.connect(Transport.VM).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(session.createQueue(WHARF.queueName("async.null")));
        assertThrows(IllegalArgumentException.class, () -> producer.send(session.createMessage(), (CompletionListener) null));
    }

    /** 7.3.8: close, commit or rollback of its own connection, session or producer from a CompletionListener. */
    @Test
    void closeCommitAndRollbackAreRefusedInsideACompletionListener() throws Exception {
        Connection connection = WHARF.connect(Transport.VM);
        Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = session.createProducer(session.createQueue(WHARF.queueName("async.rules")));
        List<Object> outcomes = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch called = new CountDownLatch(1);
        producer.send(session.createTextMessage("t"), new CompletionListener() {
            @Override
            public void onCompletion(Message message) {
                for (Runnable call : List.<Runnable>of(
                        () -> attempt(outcomes, session::close),
                        () -> attempt(outcomes, session::commit),
                        () -> attempt(outcomes, session::rollback),
                        () -> attempt(outcomes, producer::close),
                        () -> attempt(outcomes, connection::close))) {
                    call.run();
                }
                called.countDown();
            }

            @Override
            public void onException(Message message, Exception exception) {
                called.countDown();
            }
        });
        assertTrue(called.await(Receive.EXPECTED_MS, TimeUnit.MILLISECONDS));
        assertEquals(5, outcomes.size());
        for (Object outcome : outcomes) {
            assertInstanceOf(IllegalStateException.class, outcome);
        }
        session.commit(); // still usable afterwards
    }

    private interface JmsCall {
        void run() throws Exception;
    }

    private static void attempt(List<Object> outcomes, JmsCall call) {
        try {
            call.run();
            outcomes.add("no exception");
        } catch (Exception e) {
            outcomes.add(e);
        }
    }

    /** 7.3.7: closing the session waits until every outstanding send has completed and its listener returned. */
    @Test
    void sessionCloseWaitsForOutstandingCompletions() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(session.createQueue(WHARF.queueName("async.close")));
        AtomicInteger returned = new AtomicInteger();
        CompletionListener counting = listener(m -> returned.incrementAndGet());
        int count = 200;
        for (int i = 0; i < count; i++) {
            producer.send(session.createTextMessage("c" + i), counting);
        }
        session.close();
        assertEquals(count, returned.get(), "close returned before every CompletionListener had");
    }

    /** The simplified API: JMSProducer.setAsync, and JMSContext.close refused from its CompletionListener. */
    @Test
    void jmsProducerSendsAsynchronouslyAndTheContextCannotBeClosedFromItsListener() throws Exception {
        try (JMSContext context = WHARF.factory(Transport.VM).createContext()) {
            Queue queue = context.createQueue(WHARF.queueName("async.context"));
            CompletableFuture<Object> outcome = new CompletableFuture<>();
            context.createProducer().setAsync(listener(m -> {
                try {
                    context.close();
                    outcome.complete("closed");
                } catch (RuntimeException e) {
                    outcome.complete(e);
                }
            })).send(queue, "async");
            assertInstanceOf(IllegalStateRuntimeException.class, outcome.get(Receive.EXPECTED_MS, TimeUnit.MILLISECONDS));
            assertEquals("async", context.createConsumer(queue).receiveBody(String.class, Receive.EXPECTED_MS));
        }
    }

    private static CompletionListener listener(Consumer<Message> onCompletion) {
        return new CompletionListener() {
            @Override
            public void onCompletion(Message message) {
                onCompletion.accept(message);
            }

            @Override
            public void onException(Message message, Exception exception) {
                throw new AssertionError("send failed", exception);
            }
        };
    }
}
