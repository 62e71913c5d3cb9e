package org.wharfmq.server.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.admin.AdminProtocol;
import org.wharfmq.server.queue.SystemQueues;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TemporaryQueue;
import javax.jms.TextMessage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The admin command queue as a program sees it: a request with properties, an answer in JSON. The server here has
 * the admin plugin and no flow host (so no flow commands), and does not create queues by use: the plugin's queues
 * exist all the same.
 */
class AdminQueueTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Small, so that a long answer does not fit. */
    private static final int MAX_MESSAGE_LENGTH = 32 * 1024;

    private TestServer testServer;
    private Connection connection;
    private Session session;
    private TemporaryQueue replies;
    private MessageConsumer answers;

    @BeforeEach
    void start() throws Exception {
        testServer = TestServer.start(c -> c.autoCreate(false).queue("ORDERS", 500).maxMessageLength(MAX_MESSAGE_LENGTH),
                config -> WharfServer.start(config, new AdminPlugin()));
        connection = new WharfConnectionFactory(testServer.server().tcpUrl()).createConnection();
        session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        replies = session.createTemporaryQueue();
        answers = session.createConsumer(replies);
        connection.start();
    }

    @AfterEach
    void stop() throws Exception {
        connection.close();
        testServer.close();
    }

    @Test
    void aCommandIsAnsweredInJsonWithItsResult() throws Exception {
        Message answer = ask("display-queue", AdminProtocol.QUEUE, "ORDERS");
        assertTrue(answer.getBooleanProperty(AdminProtocol.OK));
        JsonNode json = JSON.readTree(((TextMessage) answer).getText());
        assertEquals("display-queue", json.get("command").asText());
        JsonNode queue = json.get("result");
        assertEquals("ORDERS", queue.get("name").asText());
        assertEquals(500, queue.get("maxDepth").asLong());
        assertTrue(queue.get("ownMaxDepth").asBoolean());
        assertEquals("CONFIGURATION", queue.get("origin").asText());
    }

    @Test
    void aFailureSaysWhyAndGivesAReasonProgramsCanActOn() throws Exception {
        Message unknownQueue = ask("display-queue", AdminProtocol.QUEUE, "NOWHERE");
        assertFalse(unknownQueue.getBooleanProperty(AdminProtocol.OK));
        assertEquals(AdminProtocol.UNKNOWN, unknownQueue.getStringProperty(AdminProtocol.ERROR));
        JsonNode json = JSON.readTree(((TextMessage) unknownQueue).getText());
        assertFalse(json.get("ok").asBoolean());
        assertTrue(json.get("error").asText().startsWith("Queue 'NOWHERE' does not exist"), json.toString());

        Message flows = ask("list", null, null); // no flow host: no flow commands
        assertEquals(AdminProtocol.UNKNOWN, flows.getStringProperty(AdminProtocol.ERROR));
        String error = JSON.readTree(((TextMessage) flows).getText()).get("error").asText();
        assertTrue(error.startsWith("Unknown admin command 'list': this queue manager answers ") && error.contains(
                "display-queues") && error.contains("topics"), error);

        Message invalid = ask("alter-queue", AdminProtocol.QUEUE, "ORDERS", "WharfMaxDepth", "lots");
        assertEquals(AdminProtocol.INVALID, invalid.getStringProperty(AdminProtocol.ERROR));
    }

    @Test
    void theAdminQueuesExistWithoutAutoCreationAndTopicsIsAnsweredWithoutAFlowHost() throws Exception {
        assertTrue(testServer.server().queueManager().exists(SystemQueues.ADMIN_COMMAND_QUEUE));
        assertTrue(testServer.server().queueManager().exists(SystemQueues.ADMIN_REPLY_QUEUE));
        Message topics = ask("topics", null, null);
        assertTrue(topics.getBooleanProperty(AdminProtocol.OK));
        assertEquals("No subscriptions and no retained publications.",
                JSON.readTree(((TextMessage) topics).getText()).get("result").asText());
    }

    /** An answer longer than a message may be is refused with a reason, not lost (the asker would wait in vain). */
    @Test
    void anAnswerTooLongForAMessageIsRefusedSayingHowToAskForLess() throws Exception {
        for (int i = 0; i < 200; i++) {
            assertTrue(ask("define-queue", AdminProtocol.QUEUE, "MANY." + i).getBooleanProperty(AdminProtocol.OK));
        }
        Message all = ask("display-queues", null, null);
        assertEquals(AdminProtocol.REFUSED, all.getStringProperty(AdminProtocol.ERROR));
        String error = JSON.readTree(((TextMessage) all).getText()).get("error").asText();
        assertTrue(error.matches("The answer is \\d+ bytes long, more than fits in a message \\(setting "
                + "maxMessageLength\\): ask for less \\(a pattern, a lower limit\\)\\."), error);
        assertTrue(ask("display-queues", AdminProtocol.PATTERN, "MANY.1").getBooleanProperty(AdminProtocol.OK));
    }

    /** Sends {@code command} with up to two properties (name, value pairs; null names left out) and waits for its answer. */
    private Message ask(String command, String property, Object value, Object... more) throws Exception {
        Message request = session.createMessage();
        request.setStringProperty(AdminProtocol.COMMAND, command);
        if (property != null) {
            request.setObjectProperty(property, value);
        }
        for (int i = 0; i < more.length; i += 2) {
            request.setObjectProperty((String) more[i], more[i + 1]);
        }
        request.setJMSReplyTo(replies);
        session.createProducer(session.createQueue(SystemQueues.ADMIN_COMMAND_QUEUE)).send(request);
        Message answer = answers.receive(10_000);
        assertTrue(answer != null, "no answer to " + command);
        assertEquals(request.getJMSMessageID(), answer.getJMSCorrelationID());
        return answer;
    }
}
