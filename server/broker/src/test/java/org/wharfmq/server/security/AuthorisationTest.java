package org.wharfmq.server.security;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.security.AuditLog;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Authorisation over the wire: each permission allowed and denied for an anonymous client (the one kind of client
 * there is until authentication lands; rules for users and groups are {@link PermissionRulesTest}'s), and new rules
 * in force at run time. Nothing refused changes anything: the server is asked afterwards.
 */
class AuthorisationTest {

    private final AccessControl control = new AccessControl(rules(), "security file test.yaml");
    private TestServer testServer;
    private WharfServer server;

    private static PermissionRules rules() {
        return PermissionRules.builder().connect("anyone")
                .queue("ORDERS.*", Permission.SEND, "anyone")
                .queue("ORDERS.*", Permission.RECEIVE, "anyone")
                .queue("ORDERS.*", Permission.CREATE, "anyone")
                .queue("AUDIT", Permission.BROWSE, "anyone")
                .topic("prices/#", Permission.SUBSCRIBE, "anyone")
                .topic("prices/fx/#", Permission.PUBLISH, "anyone")
                .topic("prices/fx/#", Permission.DURABLE, "anyone")
                .build();
    }

    @BeforeEach
    void start() throws Exception {
        testServer = TestServer.start(c -> c.queue("PAYROLL").queue("AUDIT"),
                config -> WharfServer.builder(config).accessControl(control).start());
        server = testServer.server();
    }

    @AfterEach
    void stop() {
        testServer.close();
    }

    @Test
    void aProducerNeedsSendOnItsQueueAndPublishOnItsTopic() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.request(id -> new Frame.CreateProducer(id, 1, 2, WireDestination.queue("ORDERS.EU")));
            Frame.Error error = client.requestFails(id -> new Frame.CreateProducer(id, 1, 3,
                    WireDestination.queue("PAYROLL")), ErrorCode.NOT_AUTHORISED);
            assertEquals("An anonymous client may not send to queue 'PAYROLL': no 'send' permission is granted to "
                    + "anonymous clients. Ask an administrator to grant 'send' on queue 'PAYROLL' to anyone in the "
                    + "security file's permissions, or connect as a user that has it.", error.message());
            assertEquals(3, error.producerId());
            client.request(id -> new Frame.CreateProducer(id, 1, 4, WireDestination.topic("prices/fx/GBP")));
            client.requestFails(id -> new Frame.CreateProducer(id, 1, 5, WireDestination.topic("prices/bonds")),
                    ErrorCode.NOT_AUTHORISED);
        }
    }

    @Test
    void anAnonymousProducersSendIsCheckedForEachDestinationAndNothingRefusedIsStored() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.request(id -> new Frame.CreateProducer(id, 1, 1, null));
            client.sendMessage(1, TestMessages.text("ORDERS.EU", "allowed"));
            Frame.Error error = client.requestFails(id -> new Frame.Send(id, 1, 1,
                    TestMessages.encode(TestMessages.text("PAYROLL", "forged payslip"))), ErrorCode.NOT_AUTHORISED);
            assertEquals("An anonymous client may not send to queue 'PAYROLL': no 'send' permission is granted to "
                    + "anonymous clients. Ask an administrator to grant 'send' on queue 'PAYROLL' to anyone in the "
                    + "security file's permissions, or connect as a user that has it.", error.message());
            client.sendMessage(1, TestMessages.text("ORDERS.EU", "allowed again")); // the last allowed is not kept
            client.requestFails(id -> new Frame.Send(id, 1, 1,
                    TestMessages.encode(TestMessages.text("PAYROLL", "twice"))), ErrorCode.NOT_AUTHORISED);
        }
        assertEquals(0, server.queueManager().queue("PAYROLL").depth());
        assertEquals(2, server.queueManager().queue("ORDERS.EU").depth());
    }

    @Test
    void aSendAllowedBeforeTheRulesChangedIsAskedAgainAfter() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.request(id -> new Frame.CreateProducer(id, 1, 1, WireDestination.queue("ORDERS.EU")));
            client.sendMessage(1, TestMessages.text("ORDERS.EU", "before"));
            control.replace(PermissionRules.builder().connect("anyone").build(), "security file test.yaml (emptied)");
            client.requestFails(id -> new Frame.Send(id, 1, 1,
                    TestMessages.encode(TestMessages.text("ORDERS.EU", "after"))), ErrorCode.NOT_AUTHORISED);
        }
        assertEquals(1, server.queueManager().queue("ORDERS.EU").depth());
    }

    @Test
    void aQueueIsCreatedByUseOnlyWithTheCreatePermission() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.request(id -> new Frame.CreateProducer(id, 1, 1, null));
            control.replace(PermissionRules.builder().connect("anyone")
                    .queue("**", Permission.SEND, "anyone")
                    .queue("ORDERS.*", Permission.CREATE, "anyone")
                    .build(), "security file test.yaml (create)");
            Frame.Error error = client.requestFails(id -> new Frame.Send(id, 1, 1,
                    TestMessages.encode(TestMessages.text("SCRATCH", "x"))), ErrorCode.NOT_AUTHORISED);
            assertEquals("An anonymous client may not create queue 'SCRATCH': no 'create' permission is granted to "
                    + "anonymous clients. Ask an administrator to grant 'create' on queue 'SCRATCH' to anyone in the "
                    + "security file's permissions, or connect as a user that has it.", error.message());
            client.sendMessage(1, TestMessages.text("ORDERS.NEW", "created"));
        }
        assertFalse(server.queueManager().queueNames().contains("SCRATCH"), "refused: not created");
        assertTrue(server.queueManager().queueNames().contains("ORDERS.NEW"));
    }

    @Test
    void aConsumerNeedsReceiveABrowserBrowseAndTheSystemQueuesTheAdminPermission() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.createConsumer(1, 1, "ORDERS.EU", null, 10);
            Frame.Error receive = client.requestFails(id -> new Frame.CreateConsumer(id, 1, 2,
                    WireDestination.queue("PAYROLL"), null, 10, 0, null), ErrorCode.NOT_AUTHORISED);
            assertEquals("An anonymous client may not receive from queue 'PAYROLL': no 'receive' permission is granted"
                    + " to anonymous clients. Ask an administrator to grant 'receive' on queue 'PAYROLL' to anyone in the "
                    + "security file's permissions, or connect as a user that has it.", receive.message());
            client.request(id -> new Frame.CreateConsumer(id, 1, 3, WireDestination.queue("AUDIT"), null, 10,
                    Frame.CONSUMER_BROWSER, null));
            client.requestFails(id -> new Frame.CreateConsumer(id, 1, 4, WireDestination.queue("AUDIT"), null, 10,
                    0, null), ErrorCode.NOT_AUTHORISED);
            client.requestFails(id -> new Frame.CreateConsumer(id, 1, 5, WireDestination.queue("ORDERS.EU"), null,
                    10, Frame.CONSUMER_BROWSER, null), ErrorCode.NOT_AUTHORISED);
            Frame.Error dead = client.requestFails(id -> new Frame.CreateConsumer(id, 1, 6,
                    WireDestination.queue("SYSTEM.DEAD.LETTER.QUEUE"), null, 10, 0, null), ErrorCode.NOT_AUTHORISED);
            assertTrue(dead.message().contains("the SYSTEM.* queues need the admin permission"), dead.message());
        }
    }

    @Test
    void aSubscriptionNeedsSubscribeOnEveryTopicItsFilterMatchesAndADurableOneDurableToo() throws Exception {
        try (FrameClient client = FrameClient.connect(server)) {
            client.request(id -> new Frame.SetClientId(id, "pricing"));
            client.createSession(1, false);
            client.request(id -> new Frame.CreateConsumer(id, 1, 1, WireDestination.topic("prices/+/GBP"), null, 10,
                    0, null));
            Frame.Error all = client.requestFails(id -> new Frame.CreateConsumer(id, 1, 2, WireDestination.topic("#"),
                    null, 10, 0, null), ErrorCode.NOT_AUTHORISED);
            assertEquals("An anonymous client may not subscribe to topic '#': no 'subscribe' permission is granted to "
                    + "anonymous clients. Ask an administrator to grant 'subscribe' on topic '#' to anyone in the "
                    + "security file's permissions, or connect as a user that has it.", all.message());
            client.request(id -> new Frame.CreateConsumer(id, 1, 3, WireDestination.topic("prices/fx/GBP"), null, 10,
                    Frame.CONSUMER_DURABLE, "fx"));
            client.requestFails(id -> new Frame.CreateConsumer(id, 1, 4, WireDestination.topic("prices/bonds"), null,
                    10, Frame.CONSUMER_DURABLE, "bonds"), ErrorCode.NOT_AUTHORISED);
        }
        assertEquals(java.util.List.of("fx"), server.topicManager().describe().stream()
                .filter(org.wharfmq.server.topic.TopicManager.SubscriptionInfo::durable)
                .map(org.wharfmq.server.topic.TopicManager.SubscriptionInfo::name).toList(),
                "the refused durable subscription was not made");
    }

    @Test
    void everyDenialAndEveryMessageToASystemQueueIsAnAuditLineWithWhereItCameFrom() throws Exception {
        try (LogCapture audit = LogCapture.of(AuditLog.NAME);
             FrameClient client = FrameClient.connect(server)) {
            control.replace(PermissionRules.builder().connect("anyone").admin("anyone").build(),
                    "security file test.yaml (admins)");
            client.createSession(1, false);
            client.requestFails(id -> new Frame.CreateProducer(id, 1, 1, WireDestination.queue("PAYROLL")),
                    ErrorCode.NOT_AUTHORISED);
            client.sendMessage(1, TestMessages.text("SYSTEM.ADMIN.COMMAND.QUEUE", "one"));
            client.sendMessage(1, TestMessages.text("SYSTEM.ADMIN.COMMAND.QUEUE", "two"));
            String peer = "/127.0.0.1:" + client.localPort();
            assertEquals(java.util.List.of(
                    "INFO Permission rules replaced: 2 permission rules (security file test.yaml (admins))",
                    "WARNING DENIED an anonymous client from " + peer + ": send queue 'PAYROLL' (security file test.yaml "
                            + "(admins): no rule grants 'send' on it)",
                    "INFO an anonymous client from " + peer + " sent a message to SYSTEM.ADMIN.COMMAND.QUEUE",
                    "INFO an anonymous client from " + peer + " sent a message to SYSTEM.ADMIN.COMMAND.QUEUE"),
                    audit.lines());
        }
    }

    @Test
    void aPermissionTakenAwayAtRunTimeStopsTheNextConsumerButNotAnOpenOne() throws Exception {
        try (FrameClient client = FrameClient.connect(server); FrameClient producer = FrameClient.connect(server)) {
            client.createSession(1, false);
            client.createConsumer(1, 1, "ORDERS.EU", null, 10);
            control.replace(PermissionRules.builder().connect("anyone").queue("**", Permission.SEND, "anyone").build(),
                    "security file test.yaml (reloaded)");
            client.requestFails(id -> new Frame.CreateConsumer(id, 1, 2, WireDestination.queue("ORDERS.EU"), null,
                    10, 0, null), ErrorCode.NOT_AUTHORISED);
            producer.createSession(1, false);
            producer.sendMessage(1, TestMessages.text("ORDERS.EU", "still delivered"));
            Frame.Deliver d = client.expect(Frame.Deliver.class);
            assertEquals("still delivered", TestMessages.body(d.message()));
            d.message().release();
        }
    }
}
