package org.wharfmq.server.it;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A receive that is waiting, or about to wait, when its message arrives returns it then, not at its timeout. Over
 * TCP the waiting thread may be the one reading the socket (leader/follower) or may sleep while another thread
 * reads; a wake-up lost between looking at the consumer's buffer and going to sleep shows up here as a receive
 * that takes its whole 60 s timeout, which the test's limit does not allow even once.
 */
@Timeout(45)
class ReceiveWakeupTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private static final int ROUNDS = 300;

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aWaitingReceiveReturnsItsMessageWhenItArrives(Transport transport) throws Exception {
        Session producing = WHARF.connect(transport).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Session consuming = WHARF.connect(transport).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = producing.createQueue(WHARF.queueName("wakeup"));
        MessageProducer producer = producing.createProducer(queue);
        MessageConsumer consumer = consuming.createConsumer(queue);
        for (int i = 0; i < ROUNDS; i++) {
            CountDownLatch receiving = new CountDownLatch(1);
            CompletableFuture<Message> received = CompletableFuture.supplyAsync(() -> {
                receiving.countDown();
                try {
                    return consumer.receive(60_000);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertTrue(receiving.await(10, TimeUnit.SECONDS));
            producer.send(producing.createTextMessage("round " + i));
            TextMessage message = assertInstanceOf(TextMessage.class, received.get(30, TimeUnit.SECONDS),
                    "round " + i);
            assertEquals("round " + i, message.getText());
        }
    }
}
