package org.wharfmq.server.flow;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.store.ServerProcess;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sample bridge between Wharf and a real Apache ActiveMQ Artemis ({@code ArtemisBridgeFlow}, both ways, each
 * message in a transaction on each side) in a server run as {@code wharf server --config}, killed (SIGKILL) while
 * messages cross both ways, and started again on its data directory: every message arrives on the other side, and
 * only a message whose commits the kill fell between comes twice (docs/flows.md, "Other JMS providers": the window
 * between the two commits gives a duplicate, never a loss).
 */
@Tag("slow")
class JmsBridgeCrashTest {

    private static final int MESSAGES = 200;
    /** Generous: a server JVM starting on a loaded 2-core machine. */
    private static final long WAIT_MILLIS = 90_000;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aServerKilledWhileBridgingLosesNoMessageEitherWay() throws Exception {
        try (TestArtemis artemis = TestArtemis.onFreePort().start()) {
            Path config = artemis.sampleBridgeConfiguration(dir);
            Path data = dir.resolve("data");
            List<Integer> orders = new ArrayList<>();
            List<Integer> invoices = new ArrayList<>();
            try (Connection toArtemis = artemis.connectionFactory().createConnection()) {
                toArtemis.start();
                Session artemisSession = toArtemis.createSession(false, Session.AUTO_ACKNOWLEDGE);
                send(artemisSession, "ORDERS", "order");
                MessageConsumer invoicesOnArtemis = artemisSession.createConsumer(artemisSession.createQueue("INVOICES"));

                ServerProcess server = ServerProcess.start(data, "--config", config.toString());
                try (Connection toWharf = new WharfConnectionFactory(server.url()).createConnection()) {
                    toWharf.start();
                    Session wharfSession = toWharf.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    send(wharfSession, "INVOICES", "invoice");
                    // each receive committed before it returns: none comes again because the kill lost its ack
                    Session receiving = toWharf.createSession(true, Session.SESSION_TRANSACTED);
                    MessageConsumer ordersOnWharf = receiving.createConsumer(receiving.createQueue("ORDERS"));
                    receive(ordersOnWharf, receiving, "order", orders, MESSAGES / 4);
                    receive(invoicesOnArtemis, artemisSession, "invoice", invoices, MESSAGES / 4);
                } finally {
                    server.kill(); // in the middle of both streams: no drain, no orderly close
                }

                server = ServerProcess.start(data, "--config", config.toString());
                try (Connection toWharf = new WharfConnectionFactory(server.url()).createConnection()) {
                    toWharf.start();
                    Session receiving = toWharf.createSession(true, Session.SESSION_TRANSACTED);
                    MessageConsumer ordersOnWharf = receiving.createConsumer(receiving.createQueue("ORDERS"));
                    receiveAll(ordersOnWharf, receiving, "order", orders, server);
                    receiveAll(invoicesOnArtemis, artemisSession, "invoice", invoices, server);
                    Receive.nothingMore(ordersOnWharf);
                } finally {
                    server.close();
                }
            }
            List<Integer> all = IntStream.rangeClosed(1, MESSAGES).boxed().toList();
            assertEquals(all, orders.stream().distinct().sorted().toList(), "an order from Artemis was lost");
            assertEquals(all, invoices.stream().distinct().sorted().toList(), "an invoice to Artemis was lost");
            assertTrue(twice(orders).size() <= 1, "orders that came twice: " + twice(orders));
            assertTrue(twice(invoices).size() <= 1, "invoices that came twice: " + twice(invoices));
        }
    }

    private static void send(Session session, String queue, String what) throws JMSException {
        try (MessageProducer producer = session.createProducer(session.createQueue(queue))) {
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            for (int i = 1; i <= MESSAGES; i++) {
                producer.send(session.createTextMessage(what + " " + i));
            }
        }
    }

    private static void receive(MessageConsumer consumer, Session session, String what, List<Integer> received,
                                int count) throws JMSException {
        for (int i = 0; i < count; i++) {
            int after = received.size();
            received.add(number(consumer.receive(WAIT_MILLIS), session, what, () -> after + " received"));
        }
    }

    /** The message's number, its receive committed (a transacted session). */
    private static int number(Message message, Session session, String what, Supplier<String> after)
            throws JMSException {
        assertNotNull(message, () -> "no " + what + " after " + after.get());
        if (session.getTransacted()) {
            session.commit();
        }
        return Integer.parseInt(((TextMessage) message).getText().substring(what.length() + 1));
    }

    /** Receives until every message has come at least once. */
    private static void receiveAll(MessageConsumer consumer, Session session, String what, List<Integer> received,
                                   ServerProcess server) throws JMSException {
        Set<Integer> distinct = new HashSet<>(received);
        while (distinct.size() < MESSAGES) {
            int got = distinct.size();
            int number = number(consumer.receive(WAIT_MILLIS), session, what, () -> got + " distinct of " + MESSAGES
                    + ":\n" + server.outputSoFar());
            received.add(number);
            distinct.add(number);
        }
    }

    private static List<Integer> twice(List<Integer> received) {
        Set<Integer> seen = new HashSet<>();
        return received.stream().filter(n -> !seen.add(n)).toList();
    }
}
