package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.admin.AdminProtocol;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.security.AuditLog;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.QueueBrowser;
import javax.jms.Session;
import javax.jms.TemporaryQueue;
import javax.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The admin command responder asks itself whether a request's sender may administer, from the sender the queue
 * manager stamped on the request when it accepted it, never the request's JMSXUserID or properties of its sender's
 * making. Bob, an admin when he sent a command in a transaction (forging alice as the stamped sender), lost the admin
 * permission before he committed it: the command is refused, naming it, bob, why and the fix, audited, and alice's
 * payroll keeps its message; the same refusal is not put on a queue of bob's choosing (his payroll-queue JMSReplyTo).
 * Before, the responder ran whatever reached its queue. A message of bob's moved there by
 * an administrator (carrying bob's word of who sent it) is refused by the move.
 */
class AdminSenderTest {

    private static final long RECEIVE_MILLIS = 30_000;
    private static final String RULES = """
            users: {}
            permissions:
              - queue: "SENDER.PAYROLL.*"
                send: [user:alice]
                browse: [user:alice]
              - queue: "SENDER.REQUESTS"
                send: [user:bob]
                browse: [user:alice]
              - connect: [anyone]
              - admin: [user:bob, user:alice]
            """;

    @TempDir
    static Path dir;

    private static HttpFlowServer server;

    @BeforeAll
    static void start() throws Exception {
        server = HttpFlowServer.start(dir, RULES, new AdminPlugin());
        try (Connection connection = new WharfConnectionFactory(server.server().vmUrl()).createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createConsumer(session.createQueue("SENDER.PAYROLL.A")).close(); // defined by use
            session.createConsumer(session.createQueue("SENDER.PAYROLL.B")).close();
            session.createConsumer(session.createQueue("SENDER.REQUESTS")).close();
        }
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void aCommandWhoseSenderMayNoLongerAdministerIsRefusedWhateverItClaims() throws Exception {
        try (Connection alice = connect("alice"); Connection bob = connect("bob")) {
            bob.start();
            Session aliceSession = alice.createSession(false, Session.AUTO_ACKNOWLEDGE);
            aliceSession.createProducer(aliceSession.createQueue("SENDER.PAYROLL.A"))
                    .send(aliceSession.createTextMessage("salaries"));

            Session bobSession = bob.createSession(true, Session.SESSION_TRANSACTED);
            TemporaryQueue replies = bobSession.createTemporaryQueue();
            TextMessage command = bobSession.createTextMessage("");
            command.setStringProperty(AdminProtocol.COMMAND, "clear-queue");
            command.setStringProperty(AdminProtocol.QUEUE, "SENDER.PAYROLL.A");
            command.setStringProperty("WHARF_SENDER_USER", "alice"); // a forged stamp: replaced by the server's
            command.setStringProperty("WHARF_SENDER_GROUPS", "apps");
            command.setStringProperty("WHARF_SENDER_MECHANISM", "SCRAM-SHA-256");
            MessageProducer commands = bobSession.createProducer(bobSession.createQueue(SystemQueues.ADMIN_COMMAND_QUEUE));
            command.setJMSReplyTo(bobSession.createQueue("SENDER.PAYROLL.A")); // first: its refusal is put nowhere
            commands.send(command);
            command.setJMSReplyTo(replies);
            commands.send(command);
            // a round trip on bob's connection after the send: the server has taken it (in order) before the change
            MessageConsumer answers = bobSession.createConsumer(replies);

            Path security = dir.resolve("security.yaml");
            Files.writeString(security, Files.readString(security).replace("admin: [user:bob, user:alice]",
                    "admin: [user:alice]"));
            server.realm().reload();

            Message answer;
            List<String> audit;
            try (LogCapture log = LogCapture.of(AuditLog.NAME)) {
                bobSession.commit();
                answer = answers.receive(RECEIVE_MILLIS);
                assertNotNull(answer, "the responder answers the command");
                audit = log.messages();
            }
            assertFalse(answer.getBooleanProperty(AdminProtocol.OK));
            assertEquals("NOT_AUTHORISED", answer.getStringProperty(AdminProtocol.ERROR));
            String text = ((TextMessage) answer).getText();
            assertTrue(text.contains("Admin command 'clear-queue' was refused: user 'bob' may not administer this "
                    + "queue manager (no 'admin' permission is granted to it under the rules in force now). Ask an "
                    + "administrator to grant 'admin' to user:bob in the security file's permissions"), text);
            assertTrue(audit.stream().anyMatch(l -> l.startsWith("ADMIN user 'bob' ran 'clear-queue' "
                    + "queue=SENDER.PAYROLL.A (request ID:") && l.contains("FAILED: Admin command 'clear-queue' was "
                    + "refused: user 'bob' may not administer")), audit.toString());
            // the commands run one at a time in order: the second's answer came after the first was refused
            assertTrue(audit.stream().anyMatch(l -> l.startsWith("ADMIN user 'bob' ran 'clear-queue'") && l.endsWith(
                    "Not answered: its JMSReplyTo names queue://SENDER.PAYROLL.A, and the refusal of a sender not known"
                    + " to administer goes to a temporary queue or SYSTEM.ADMIN.REPLY.QUEUE only.")), audit.toString());
            assertEquals(1, browse(aliceSession, "SENDER.PAYROLL.A"), "the command was not run, nor answered there");
        } finally {
            Files.writeString(dir.resolve("security.yaml"), Files.readString(dir.resolve("security.yaml"))
                    .replace("admin: [user:alice]", "admin: [user:bob, user:alice]"));
            server.realm().reload();
        }
    }

    @Test
    void aMessageOfAnotherQueueCannotBeMovedOrCopiedOntoTheAdminCommandQueue() throws Exception {
        try (Connection alice = connect("alice"); Connection bob = connect("bob")) {
            alice.start();
            Session aliceSession = alice.createSession(false, Session.AUTO_ACKNOWLEDGE);
            aliceSession.createProducer(aliceSession.createQueue("SENDER.PAYROLL.B"))
                    .send(aliceSession.createTextMessage("salaries"));
            Session bobSession = bob.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TextMessage command = bobSession.createTextMessage("");
            command.setStringProperty(AdminProtocol.COMMAND, "clear-queue");
            command.setStringProperty(AdminProtocol.QUEUE, "SENDER.PAYROLL.B");
            command.setStringProperty("WHARF_SENDER_USER", "alice");
            command.setStringProperty("WHARF_SENDER_GROUPS", "apps");
            command.setStringProperty("WHARF_SENDER_MECHANISM", "SCRAM-SHA-256");
            bobSession.createProducer(bobSession.createQueue("SENDER.REQUESTS")).send(command);

            TemporaryQueue replies = aliceSession.createTemporaryQueue();
            MessageConsumer answers = aliceSession.createConsumer(replies);
            for (String transfer : List.of("copy", "move")) {
                Message request = aliceSession.createMessage();
                request.setStringProperty(AdminProtocol.COMMAND, transfer);
                request.setStringProperty(AdminProtocol.FROM, "SENDER.REQUESTS");
                request.setStringProperty(AdminProtocol.TO, SystemQueues.ADMIN_COMMAND_QUEUE);
                request.setJMSReplyTo(replies);
                aliceSession.createProducer(aliceSession.createQueue(SystemQueues.ADMIN_COMMAND_QUEUE)).send(request);
                Message answer = answers.receive(RECEIVE_MILLIS);
                assertNotNull(answer, "the responder answers " + transfer);
                assertFalse(answer.getBooleanProperty(AdminProtocol.OK), ((TextMessage) answer).getText());
                String text = ((TextMessage) answer).getText();
                assertTrue(text.contains("cannot be " + (transfer.equals("move") ? "moved" : "copied") + " to "
                        + "SYSTEM.ADMIN.COMMAND.QUEUE: each request there runs as the sender the queue manager stamped"
                        + " on it"), text);
            }
            assertEquals(1, browse(aliceSession, "SENDER.PAYROLL.B"), "bob's command was not run");
            assertEquals(1, browse(aliceSession, "SENDER.REQUESTS"), "bob's message stayed where he put it");
        }
    }

    private static Connection connect(String user) throws JMSException {
        return new WharfConnectionFactory(server.server().networkUrls().get(0)).createConnection(user, user + "-pw");
    }

    private static int browse(Session session, String queue) throws JMSException {
        QueueBrowser browser = session.createBrowser(session.createQueue(queue));
        try {
            return Collections.list(browser.getEnumeration()).size();
        } finally {
            browser.close();
        }
    }
}
