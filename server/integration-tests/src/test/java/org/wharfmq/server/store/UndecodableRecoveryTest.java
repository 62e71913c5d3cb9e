package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A journal can hold a message that cannot be decoded (written before SEND checked the encoding, or by a bug).
 * Recovery moves it to the dead-letter queue with the reason, instead of putting it back where it would fail every
 * consumer with a selector, and records the move, so the next start finds it there and only there.
 */
class UndecodableRecoveryTest {

    private static final String DEAD_LETTER_QUEUE = "SYSTEM.DEAD.LETTER.QUEUE";

    @Test
    void anUndecodableMessageIsDeadLetteredAtRecoveryWithItsReasonOnceAndTheQueueServesTheRest() throws Exception {
        try (TestServer test = TestServer.start()) {
            test.stop(); // the journal is written by hand first, as an older server (or a bug) could have written it
            recoverAndServe(test, test.config());
        }
    }

    private void recoverAndServe(TestServer test, ServerConfig config) throws Exception {
        ByteBuf bad = TestMessages.encode(colored("bad"));
        int tagOffset = TestMessages.setPropertyTag(bad, "color", 0x7f);
        byte[] original = TestMessages.bytes(bad);
        try (JournalMessageStore store = StoreHarness.open(config, new StoreHarness.Recovered())) {
            StoreHarness.put(store, new StoreHarness.Message("ORDERS", 1, bad));
            StoreHarness.put(store, new StoreHarness.Message("ORDERS", 2, TestMessages.encode(colored("good"))));
        }

        LogCapture log = LogCapture.of("org.wharfmq.server.queue.DeadLetters");
        String reason = "recovered from the journal but cannot be decoded: property 1 of 1 ('color') has unknown type"
                + " tag 0x7f at offset " + tagOffset;
        try {
            WharfServer server = test.restart();
            assertEquals(List.of("Message ID:test-bad on queue 'ORDERS' moved to " + DEAD_LETTER_QUEUE + ": " + reason),
                    log.messages(), "logged with the queue and the message id");
            assertEquals(1, server.queueManager().depth("ORDERS"));
            assertEquals(1, server.queueManager().depth(DEAD_LETTER_QUEUE));
            Connection connection = new WharfConnectionFactory(server.tcpUrl()).createConnection();
            try {
                connection.start();
                Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
                MessageConsumer selecting = session.createConsumer(session.createQueue("ORDERS"), "color = 'red'");
                TextMessage good = assertInstanceOf(TextMessage.class, selecting.receive(10_000));
                assertEquals("good", good.getText(), "a selector consumer is served, not disconnected");
            } finally {
                connection.close(); // unacknowledged: "good" stays
            }
        } finally {
            log.close();
        }

        // a second start: the move was journaled, so the dead letter is where it went, once
        WharfServer server = test.restart();
        assertEquals(1, server.queueManager().depth("ORDERS"));
        assertEquals(1, server.queueManager().depth(DEAD_LETTER_QUEUE), "the move was journaled: moved once");
        Connection connection = new WharfConnectionFactory(server.tcpUrl()).createConnection();
        try {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer deadLetters = session.createConsumer(session.createQueue(DEAD_LETTER_QUEUE));
            BytesMessage letter = assertInstanceOf(BytesMessage.class, deadLetters.receive(10_000));
            assertNotNull(letter);
            assertEquals(reason, letter.getStringProperty("WHARF_DLQ_REASON"));
            assertEquals("ORDERS", letter.getStringProperty("WHARF_DLQ_QUEUE"));
            assertEquals("ID:test-bad", letter.getJMSMessageID());
            byte[] body = new byte[(int) letter.getBodyLength()];
            letter.readBytes(body);
            assertArrayEquals(original, body, "the dead letter holds the original bytes");
            assertNull(deadLetters.receiveNoWait());
        } finally {
            connection.close();
        }
    }

    private static WireMessage colored(String text) {
        WireMessage m = TestMessages.text("ORDERS", text);
        m.persistent = true;
        m.properties.put("color", "red");
        return m;
    }
}
