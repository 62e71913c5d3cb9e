package org.wharfmq.server.security;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.security.file.SecurityFileRealm;

import javax.jms.Connection;
import javax.jms.JMSSecurityException;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The worked example of docs/security.md, end to end: two applications that may not read each other's queues, a user
 * who may not connect, and a permission taken away by editing the security file while the server runs.
 */
class PermissionsFileTest {

    @TempDir
    Path dir;
    private Path file;
    private SecurityFileRealm realm;
    private TestServer testServer;
    private WharfConnectionFactory factory;

    private static String verifier(String password) {
        return ScramCredential.create(password.toCharArray(), 4096, new SecureRandom()).verifier();
    }

    private String securityFile(String ordersReceivers) {
        return "users:\n"
                + "  orders-app:\n    password: \"" + verifier("orders-pw") + "\"\n    groups: [apps]\n"
                + "  payroll-app:\n    password: \"" + verifier("payroll-pw") + "\"\n    groups: [hr]\n"
                + "  visitor:\n    password: \"" + verifier("visitor-pw") + "\"\n"
                + "  ops:\n    password: \"" + verifier("ops-pw") + "\"\n    groups: [admins]\n"
                + "permissions:\n"
                + "  - queue: \"PAYROLL.**\"\n    send: [group:hr]\n    receive: [group:hr]\n"
                + "  - queue: \"ORDERS.*\"\n    send: [group:apps]\n    receive: " + ordersReceivers + "\n"
                + "  - connect: [group:apps, group:hr, group:admins]\n"
                + "  - admin: [group:admins]\n";
    }

    @BeforeEach
    void start() throws Exception {
        file = dir.resolve("security.yaml");
        Files.writeString(file, securityFile("[group:apps]"));
        realm = SecurityFileRealm.open(file);
        testServer = TestServer.start(c -> c.queue("ORDERS.EU").queue("PAYROLL.2026"),
                config -> WharfServer.builder(config).authenticator(realm).accessControl(realm.accessControl()).start());
        factory = new WharfConnectionFactory(testServer.server().tcpUrl());
    }

    @AfterEach
    void stop() {
        testServer.close();
        realm.close();
    }

    @Test
    void twoApplicationsCannotReadEachOthersQueuesAndAUserWithoutConnectIsTurnedAway() throws Exception {
        try (Connection orders = factory.createConnection("orders-app", "orders-pw");
             Connection payroll = factory.createConnection("payroll-app", "payroll-pw")) {
            Session o = orders.createSession(false, Session.AUTO_ACKNOWLEDGE);
            o.createConsumer(o.createQueue("ORDERS.EU")).close();
            JMSSecurityException denied = assertThrows(JMSSecurityException.class,
                    () -> o.createConsumer(o.createQueue("PAYROLL.2026")));
            assertEquals("User 'orders-app' may not receive from queue 'PAYROLL.2026': no 'receive' permission is "
                    + "granted to it. Ask an administrator to grant 'receive' on queue 'PAYROLL.2026' to user:orders-app "
                    + "in the security file's permissions.", denied.getMessage());

            Session p = payroll.createSession(false, Session.AUTO_ACKNOWLEDGE);
            p.createProducer(p.createQueue("PAYROLL.2026")).send(p.createTextMessage("payslip"));
            payroll.start();
            assertNotNull(p.createConsumer(p.createQueue("PAYROLL.2026")).receive(10_000));
            assertThrows(JMSSecurityException.class, () -> p.createProducer(p.createQueue("ORDERS.EU")));
        }
        JMSSecurityException visitor = assertThrows(JMSSecurityException.class,
                () -> factory.createConnection("visitor", "visitor-pw").close());
        assertEquals("User 'visitor' may not connect to the queue manager: no 'connect' permission is granted to it. "
                + "Ask an administrator to grant 'connect' to user:visitor in the security file's permissions.",
                visitor.getMessage());
    }

    /** An admin command (wharf flow deploy among them) is a message on SYSTEM.ADMIN.COMMAND.QUEUE: admins only. */
    @Test
    void onlyAnAdminMaySendAnAdminCommand() throws Exception {
        try (Connection orders = factory.createConnection("orders-app", "orders-pw");
             Connection ops = factory.createConnection("ops", "ops-pw")) {
            Session o = orders.createSession(false, Session.AUTO_ACKNOWLEDGE);
            JMSSecurityException denied = assertThrows(JMSSecurityException.class,
                    () -> o.createProducer(o.createQueue(SYSTEM_ADMIN)));
            assertEquals("User 'orders-app' may not send to queue '" + SYSTEM_ADMIN + "': no 'admin' permission (the "
                    + "SYSTEM.* queues need the admin permission) is granted to it. Ask an administrator to grant 'admin' to user:orders-app in the "
                    + "security file's permissions.", denied.getMessage());
            javax.jms.MessageProducer anonymous = o.createProducer(null);
            javax.jms.Message deploy = o.createMessage();
            deploy.setStringProperty("WharfCommand", "deploy");
            assertThrows(JMSSecurityException.class, () -> anonymous.send(o.createQueue(SYSTEM_ADMIN), deploy,
                    javax.jms.DeliveryMode.PERSISTENT, 4, 0));

            Session a = ops.createSession(false, Session.AUTO_ACKNOWLEDGE);
            javax.jms.Message list = a.createMessage();
            list.setStringProperty("WharfCommand", "list");
            a.createProducer(a.createQueue(SYSTEM_ADMIN)).send(list); // persistent: answered by the server
        }
        assertEquals(1, testServer.server().queueManager().depth(SYSTEM_ADMIN), "only the admin's command arrived");
    }

    private static final String SYSTEM_ADMIN = org.wharfmq.server.queue.SystemQueues.ADMIN_COMMAND_QUEUE;

    @Test
    void aPermissionRemovedFromTheFileStopsTheNextConsumerButNotTheOpenOne() throws Exception {
        try (Connection orders = factory.createConnection("orders-app", "orders-pw")) {
            Session s = orders.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer open = s.createConsumer(s.createQueue("ORDERS.EU"));
            Files.writeString(file, securityFile("[group:hr]"));
            realm.reload(); // what the file watcher does when the file changes
            // a queue this connection consumed from before is not waited for: the refusal comes with its receive
            MessageConsumer refused = s.createConsumer(s.createQueue("ORDERS.EU"));
            orders.start();
            JMSSecurityException e = assertThrows(JMSSecurityException.class, () -> refused.receive(10_000));
            assertEquals("User 'orders-app' may not receive from queue 'ORDERS.EU': no 'receive' permission is granted "
                    + "to it. Ask an administrator to grant 'receive' on queue 'ORDERS.EU' to user:orders-app in the "
                    + "security file's permissions.", e.getMessage());
            s.createProducer(s.createQueue("ORDERS.EU")).send(s.createTextMessage("still mine"));
            assertNotNull(open.receive(10_000), "the consumer opened before the change keeps consuming");
        }
    }
}
