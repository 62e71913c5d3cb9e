package org.wharfmq.server.it;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Permission;
import org.wharfmq.server.security.PermissionRules;

import javax.jms.Connection;
import javax.jms.JMSSecurityException;
import javax.jms.MessageProducer;
import javax.jms.Session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A denial reaches a JMS application as the JMSSecurityException the specification names, with the server's words. */
class AuthorisationJmsTest {

    private TestServer testServer;
    private Connection connection;

    @BeforeEach
    void start() throws Exception {
        AccessControl control = new AccessControl(PermissionRules.builder().connect("anyone")
                .queue("ORDERS", Permission.SEND, "anyone")
                .build(), "security file test.yaml");
        testServer = TestServer.start(c -> c.queue("ORDERS").queue("PAYROLL"),
                config -> WharfServer.builder(config).accessControl(control).start());
        connection = new WharfConnectionFactory(testServer.server().tcpUrl()).createConnection();
    }

    @AfterEach
    void stop() throws Exception {
        connection.close();
        testServer.close();
    }

    @Test
    void aRefusedConsumerAndARefusedSendAreJmsSecurityExceptionsThatSayWhy() throws Exception {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        JMSSecurityException consumer = assertThrows(JMSSecurityException.class,
                () -> session.createConsumer(session.createQueue("ORDERS")));
        assertEquals("An anonymous client may not receive from queue 'ORDERS': no 'receive' permission is granted to "
                + "anonymous clients. Ask an administrator to grant 'receive' on queue 'ORDERS' to anyone in the security "
                + "file's permissions, or connect as a user that has it.", consumer.getMessage());
        assertEquals("NOT_AUTHORISED", consumer.getErrorCode());

        MessageProducer anonymous = session.createProducer(null);
        javax.jms.Message payslip = session.createTextMessage("forged");
        payslip.setJMSDeliveryMode(javax.jms.DeliveryMode.PERSISTENT);
        JMSSecurityException send = assertThrows(JMSSecurityException.class,
                () -> anonymous.send(session.createQueue("PAYROLL"), payslip));
        assertEquals("An anonymous client may not send to queue 'PAYROLL': no 'send' permission is granted to "
                + "anonymous clients. Ask an administrator to grant 'send' on queue 'PAYROLL' to anyone in the security "
                + "file's permissions, or connect as a user that has it.", send.getMessage());
        anonymous.send(session.createQueue("ORDERS"), session.createTextMessage("fine"));
        assertEquals(0, testServer.server().queueManager().queue("PAYROLL").depth());
    }
}
