package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.node.HttpInputNode;
import org.wharfmq.flow.node.HttpReplyNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.HostCapture;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.InProcessLogins;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An HTTP-invoked flow's sends are its caller's (HTTPInput runAs CALLER, the default): a caller with {@code send} on
 * the queue gets the message there with itself as JMSXUserID; a caller without is answered 403 naming the queue and
 * the permission, and nothing of the invocation is sent (an earlier send it was allowed included, and even though the
 * flow catches the failure); an anonymous caller sends nothing; runAs FLOW sends with the flow host's authority.
 */
class HttpCallerSendsTest {

    @TempDir
    static Path dir;

    private static HttpFlowServer flows;
    /** What the queue manager offers its plugins, as the flow host sees it. */
    private static final HostCapture QUEUE_MANAGER = new HostCapture();

    @BeforeAll
    static void start() throws Exception {
        flows = HttpFlowServer.start(dir, """
                users: {}
                allowAnonymous: true
                permissions:
                  - path: "/flows/**"
                    call: [anyone]
                  - queue: "CALLER.ORDERS"
                    send: [user:alice]
                  - queue: "CALLER.LOG"
                    send: [anyone]
                  - connect: [anyone]
                """, QUEUE_MANAGER);
        flows.flowHost().deploy(() -> orders("orders", HttpInputNode.RunAs.CALLER), 1);
        flows.flowHost().deploy(() -> orders("trusted", HttpInputNode.RunAs.FLOW), 1);
        try (Connection connection = new WharfConnectionFactory(flows.server().vmUrl()).createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createConsumer(session.createQueue("CALLER.ORDERS")).close(); // defined by use: depth is asked
            session.createConsumer(session.createQueue("CALLER.LOG")).close();
        }
    }

    /** Logs the request to CALLER.LOG, then sends it to CALLER.ORDERS (its failure caught: answered 409), replies. */
    private static FlowDefinition orders(String name, HttpInputNode.RunAs runAs) {
        return FlowDefinition.builder(name)
                .node("in", HttpInputNode.path("/flows/" + name).runAs(runAs))
                .node("log", OutputNode.queue("CALLER.LOG"))
                .node("store", OutputNode.queue("CALLER.ORDERS"))
                .node("reply", new HttpReplyNode())
                .node("conflict", new HttpReplyNode())
                .wire("in", "out", "log").wire("log", "out", "store").wire("store", "out", "reply")
                .wire("store", "failure", "conflict")
                .build();
    }

    @AfterAll
    static void stop() {
        if (flows != null) {
            flows.close();
        }
    }

    private static HttpResponse<String> post(String path, String user, String body) throws Exception {
        return flows.post(path, user, body);
    }

    private static long depth(String queue) {
        return flows.server().queueManager().depth(queue);
    }

    /** Takes the messages waiting on {@code queue}; the last one, or null. */
    private static Message drain(String queue) throws Exception {
        try (Connection connection = new WharfConnectionFactory(flows.server().vmUrl()).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
            Message last = null;
            for (Message m; (m = consumer.receiveNoWait()) != null; ) {
                last = m;
            }
            return last;
        }
    }

    @Test
    void aCallerWithSendGetsTheMessageOntoTheQueueAsItself() throws Exception {
        drain("CALLER.ORDERS");
        HttpResponse<String> response = post("/flows/orders", "alice", "tea for alice");
        assertEquals(200, response.statusCode(), response.body());
        Message order = drain("CALLER.ORDERS");
        assertNotNull(order);
        assertEquals("alice", order.getStringProperty("JMSXUserID"), "sent as the caller, not the flow host");
        assertEquals("alice", drain("CALLER.LOG").getStringProperty("JMSXUserID"));
    }

    @Test
    void aCallerWithoutSendIsAnswered403AndNothingIsSent() throws Exception {
        long orders = depth("CALLER.ORDERS");
        long log = depth("CALLER.LOG");
        HttpResponse<String> response = post("/flows/orders", "bob", "tea for bob");
        assertEquals(403, response.statusCode(), response.body());
        assertTrue(response.body().contains("User 'bob' may not send to queue 'CALLER.ORDERS': no 'send' permission"),
                response.body());
        assertEquals(orders, depth("CALLER.ORDERS"), "the refused send was not made");
        assertEquals(log, depth("CALLER.LOG"), "the send bob may make rolled back with the invocation");
    }

    @Test
    void anAnonymousCallerSendsNothingUnlessTheFlowRunsAsItself() throws Exception {
        long log = depth("CALLER.LOG");
        HttpResponse<String> response = post("/flows/orders", null, "tea for nobody");
        assertEquals(403, response.statusCode(), response.body());
        assertTrue(response.body().contains("An anonymous HTTP caller may not send to queue 'CALLER.LOG' through flow "
                + "'orders'"), response.body());
        assertTrue(response.body().contains("runAs(FLOW)"), response.body());
        assertEquals(log, depth("CALLER.LOG"));

        drain("CALLER.ORDERS");
        HttpResponse<String> trusted = post("/flows/trusted", null, "tea, trusted");
        assertEquals(200, trusted.statusCode(), trusted.body());
        Message order = drain("CALLER.ORDERS");
        assertNotNull(order, "runAs FLOW: the flow host's authority");
        assertNull(order.getStringProperty("JMSXUserID"), "the flow host here is the queue manager's own connection");
    }

    @Test
    void theLoginAPluginActsAsAUserWithIsRefusedOverTcp() throws Exception {
        InProcessLogins.Login login = QUEUE_MANAGER.host().logins().inProcess().loginFor(new Identity("alice", Set.of("apps"), "TEST"));
        WharfConnectionFactory overTcp = new WharfConnectionFactory("tcp://127.0.0.1:" + flows.server().tcpPort());
        JMSException refused = assertThrows(JMSException.class,
                () -> overTcp.createConnection(login.name(), new String(login.password())).close());
        assertTrue(refused.getMessage().toLowerCase().contains("authentication failed"), refused.getMessage());

        WharfConnectionFactory inVm = new WharfConnectionFactory(flows.server().vmUrl());
        try (Connection asAlice = inVm.createConnection(login.name(), new String(login.password()))) {
            Session session = asAlice.createSession(false, Session.AUTO_ACKNOWLEDGE);
            JMSException denied = assertThrows(JMSException.class, () -> session.createProducer(
                    session.createQueue("CALLER.SECRET")).send(session.createTextMessage("x")));
            assertTrue(denied.getMessage().contains("User 'alice' may not"),
                    "in-VM, the login is alice with alice's permissions: " + denied.getMessage());
        }
    }
}
