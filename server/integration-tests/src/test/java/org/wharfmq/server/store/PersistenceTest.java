package org.wharfmq.server.store;

import org.junit.jupiter.api.Test;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.it.Receive;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.TransactionRolledBackException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The journal seen through JMS, with the server in this JVM: restarts, redelivery flags, a full journal. */
class PersistenceTest {

    @Test
    void aRestartKeepsPersistentMessagesAndMarksDeliveredOnesRedelivered() throws Exception {
        try (TestServer testServer = TestServer.start()) {
            WharfServer server = testServer.server();
            try (Connection connection = new WharfConnectionFactory(server.tcpUrl()).createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
                Queue queue = session.createQueue("ORDERS");
                MessageProducer producer = session.createProducer(queue);
                producer.send(session.createTextMessage("delivered, not acknowledged"));
                MessageConsumer consumer = session.createConsumer(queue);
                assertEquals("delivered, not acknowledged", ((TextMessage) consumer.receive(5000)).getText());
                consumer.close();
                producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
                producer.send(session.createTextMessage("non-persistent"));
                producer.setDeliveryMode(DeliveryMode.PERSISTENT);
                producer.send(session.createTextMessage("never delivered"));
            }
            assertEquals(3, server.queueManager().depth("ORDERS"));
            server = testServer.restart();
            assertEquals(2, server.queueManager().depth("ORDERS"), "the non-persistent message is gone");
            try (Connection connection = new WharfConnectionFactory(server.tcpUrl()).createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer consumer = session.createConsumer(session.createQueue("ORDERS"));
                Message first = consumer.receive(5000);
                assertEquals("delivered, not acknowledged", ((TextMessage) first).getText());
                assertTrue(first.getJMSRedelivered());
                assertEquals(2, first.getIntProperty("JMSXDeliveryCount"));
                Message second = consumer.receive(5000);
                assertEquals("never delivered", ((TextMessage) second).getText());
                assertFalse(second.getJMSRedelivered());
                assertEquals(1, second.getIntProperty("JMSXDeliveryCount"));
                Receive.nothingMore(consumer);
            }
        }
    }

    @Test
    void aRecoveredByteCorrelationIdIsSelectedByTheStringItsClientReports() throws Exception {
        byte[] id = {0x00, 0x11, (byte) 0xee, (byte) 0xff};
        String reported;
        try (TestServer testServer = TestServer.start()) {
            WharfServer server = testServer.server();
            try (Connection connection = new WharfConnectionFactory(server.tcpUrl()).createConnection()) {
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue queue = session.createQueue("REPLIES");
                MessageProducer producer = session.createProducer(queue);
                TextMessage reply = session.createTextMessage("reply by bytes");
                reply.setJMSCorrelationIDAsBytes(id);
                reported = reply.getJMSCorrelationID();
                producer.send(reply);
                producer.send(session.createTextMessage("no correlation id"));
            }
            assertEquals("ID:0011eeff", reported);
            server = testServer.restart();
            try (Connection connection = new WharfConnectionFactory(server.tcpUrl()).createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer consumer = session.createConsumer(session.createQueue("REPLIES"),
                        "JMSCorrelationID = '" + reported + "'");
                Message recovered = consumer.receive(5000);
                assertNotNull(recovered, "the recovered message must be selected by " + reported);
                assertEquals("reply by bytes", ((TextMessage) recovered).getText());
                assertArrayEquals(id, recovered.getJMSCorrelationIDAsBytes());
                Receive.nothingMore(consumer);
                assertEquals(1, server.queueManager().depth("REPLIES"), "the message without an id stays");
            }
        }
    }

    @Test
    void aRecoveredMessageWithADeliveryDelayWaitsForItsDeliveryTime() throws Exception {
        long delayMillis = 4000;
        long deliveryTime;
        try (TestServer testServer = TestServer.start()) {
            WharfServer server = testServer.server();
            try (Connection connection = new WharfConnectionFactory(server.tcpUrl()).createConnection()) {
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageProducer producer = session.createProducer(session.createQueue("LATER"));
                producer.setDeliveryDelay(delayMillis);
                TextMessage later = session.createTextMessage("not before its time");
                producer.send(later);
                deliveryTime = later.getJMSDeliveryTime();
                producer.setDeliveryDelay(0);
                producer.send(session.createTextMessage("now"));
            }
            server = testServer.restart();
            assertEquals(2, server.queueManager().depth("LATER"), "the delayed message is recovered and counted");
            try (Connection connection = new WharfConnectionFactory(server.tcpUrl()).createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer consumer = session.createConsumer(session.createQueue("LATER"));
                assertEquals("now", ((TextMessage) consumer.receive(5000)).getText());
                long left = deliveryTime - System.currentTimeMillis();
                assumeTrue(left > 500,
                        "the restart took longer than the delay: nothing left to wait for");
                // asks the server (PULL): a delayed message it released early would come now. Conclusive when the
                // answer comes before the delivery time, as the assumption above makes near certain; later, the
                // message may rightly be there, and the checks below still hold it to its time
                Message early = consumer.receiveNoWait();
                long answered = System.currentTimeMillis();
                assertTrue(early == null || answered >= deliveryTime,
                        "released " + (deliveryTime - answered) + " ms before its delivery time");
                Message delayed = early != null ? early : consumer.receive(left + 5000);
                assertNotNull(delayed, "released at its delivery time");
                assertEquals("not before its time", ((TextMessage) delayed).getText());
                assertTrue(System.currentTimeMillis() >= deliveryTime, "received before its delivery time");
            }
        }
    }

    @Test
    void aFullJournalRefusesProducersClearlyWhileConsumersGoOn() throws Exception {
        long fileBytes = Configuration.MIN_JOURNAL_FILE_BYTES;
        try (TestServer testServer = TestServer.start(c -> c
                .journalFileBytes(fileBytes).journalSlackBytes(0).journalMaxBytes(2 * fileBytes))) {
            WharfServer server = testServer.server();
            try (Connection connection = new WharfConnectionFactory(server.tcpUrl()).createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue queue = session.createQueue("BIG");
                MessageProducer producer = session.createProducer(queue);
                String body = "y".repeat(2000);
                JMSException refused = null;
                int sent = 0;
                for (int i = 0; i < 1000 && refused == null; i++) {
                    try {
                        producer.send(session.createTextMessage(body));
                        sent++;
                    } catch (JMSException e) {
                        refused = e;
                    }
                }
                assertNotNull(refused, "a 128 KiB journal took 2 MB of messages");
                assertTrue(refused.getMessage().contains("journal is full"), refused.getMessage());
                assertTrue(refused.getMessage().contains("limit is " + 2 * fileBytes + " (setting journalMaxBytes)"),
                        "names the limit and its setting: " + refused.getMessage());
                assertTrue(refused.getMessage().contains("Consume messages or raise the limit"),
                        "says what to do: " + refused.getMessage());
                assertEquals(sent, server.queueManager().depth("BIG"), "the refused message is not on the queue");

                Session transacted = connection.createSession(true, Session.SESSION_TRANSACTED);
                transacted.createProducer(queue).send(transacted.createTextMessage(body));
                JMSException commit = assertThrows(TransactionRolledBackException.class, transacted::commit);
                assertTrue(commit.getMessage().contains("journal is full"), commit.getMessage());

                MessageConsumer consumer = session.createConsumer(queue);
                for (int i = 0; i < sent; i++) {
                    assertNotNull(consumer.receive(5000), "consumers keep working: message " + i);
                }
                consumer.close();
                // the next send either fits at once or is the one that makes reclamation free the old segments
                boolean accepted = false;
                for (int attempt = 0; attempt < 3 && !accepted; attempt++) {
                    try {
                        producer.send(session.createTextMessage(body));
                        accepted = true;
                    } catch (JMSException e) {
                        assertTrue(e.getMessage().contains("journal is full"), e.getMessage());
                    }
                }
                assertTrue(accepted, "once consumed, the journal takes messages again");
            }
        }
    }

    @Test
    void aFullDiskRefusesProducersClearlyWhileConsumersGoOnAndSendingResumesWhenSpaceReturns() throws Exception {
        AtomicLong freeBytes = new AtomicLong(100L << 30);
        String body = "z".repeat(1000);
        int sent = 0;
        try (TestServer testServer = TestServer.start(c -> c,
                config -> WharfServer.builder(config).store(JournalMessageStore.open(config, d -> freeBytes.get())).start())) {
            WharfServer server = testServer.server();
            try (Connection connection = new WharfConnectionFactory(server.tcpUrl()).createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue queue = session.createQueue("DISK");
                MessageProducer producer = session.createProducer(queue);
                for (; sent < 5; sent++) {
                    producer.send(session.createTextMessage(body));
                }

                freeBytes.set(1L << 20); // below the reserve the journal keeps for consumers and commits
                JMSException refused = null;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (refused == null && System.nanoTime() < deadline) {
                    try {
                        producer.send(session.createTextMessage(body)); // until the writer reads the disk again
                        sent++;
                    } catch (JMSException e) {
                        refused = e;
                    }
                }
                assertNotNull(refused, "a disk below the reserve took more messages");
                assertTrue(refused.getMessage().contains("disk of the journal"), refused.getMessage());
                assertTrue(refused.getMessage().contains("is full: " + (1L << 20) + " bytes free"),
                        "names the free space: " + refused.getMessage());
                assertTrue(refused.getMessage().contains("Free disk space or consume messages"),
                        "says what to do: " + refused.getMessage());
                assertEquals(sent, server.queueManager().depth("DISK"), "the refused message is not on the queue");

                Session transacted = connection.createSession(true, Session.SESSION_TRANSACTED);
                transacted.createProducer(queue).send(transacted.createTextMessage(body));
                JMSException commit = assertThrows(TransactionRolledBackException.class, transacted::commit);
                assertTrue(commit.getMessage().contains("disk of the journal"), commit.getMessage());

                MessageConsumer consumer = session.createConsumer(queue);
                for (int i = 0; i < sent - 1; i++) {
                    assertNotNull(consumer.receive(5000), "consumers keep working: message " + i);
                }
                consumer.close();

                freeBytes.set(100L << 30);
                boolean accepted = false;
                deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!accepted && System.nanoTime() < deadline) {
                    try {
                        producer.send(session.createTextMessage("room again"));
                        accepted = true;
                    } catch (JMSException e) {
                        assertTrue(e.getMessage().contains("disk of the journal"), e.getMessage());
                    }
                }
                assertTrue(accepted, "once the disk has room, the journal takes messages again");
            }
            server = testServer.restart();
            assertEquals(2, server.queueManager().depth("DISK"),
                    "the consumes made while the disk was full were journaled: only the last of the first messages "
                            + "and the one sent after are left");
        }
    }
}
