package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.admin.AdminProtocol;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.AuditLog;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TemporaryQueue;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every admin command is an audit line: who ran what, and the result; the broker's line says from where. */
class AdminAuditTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    @Test
    void anAdminCommandIsAuditedWithWhoWhatAndTheResult() throws Exception {
        List<String> lines;
        try (LogCapture audit = LogCapture.of(AuditLog.NAME)) {
            runListAndTrace();
            lines = audit.messages();
        }
        List<String> admin = lines.stream().filter(l -> l.startsWith("ADMIN ")).toList();
        assertEquals(2, admin.size(), lines.toString());
        assertTrue(admin.get(0).matches("ADMIN anonymous client ran 'list' \\(request ID:.*\\): OK"), admin.get(0));
        assertTrue(admin.get(1).matches("ADMIN anonymous client ran 'trace' \\(request ID:.*\\): FAILED: The command "
                + "needs a flow name\\."), admin.get(1));
        assertEquals(2, lines.stream().filter(l -> l.matches("an anonymous client from /127\\.0\\.0\\.1:\\d+ sent a "
                + "message to SYSTEM\\.ADMIN\\.COMMAND\\.QUEUE")).count(), lines.toString());
    }

    private static void runListAndTrace() throws Exception {
        try (Connection connection = new WharfConnectionFactory(WHARF.server().tcpUrl()).createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TemporaryQueue replies = session.createTemporaryQueue();
            MessageConsumer answers = session.createConsumer(replies);
            connection.start();
            for (String command : List.of("list", "trace")) {
                Message request = session.createMessage();
                request.setStringProperty(AdminProtocol.COMMAND, command);
                request.setJMSReplyTo(replies);
                session.createProducer(session.createQueue(SystemQueues.ADMIN_COMMAND_QUEUE)).send(request);
                assertNotNull(answers.receive(10_000), "no answer to " + command);
            }
        }
    }
}
