package org.wharfmq.server.security;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.topic.Subscription;
import org.wharfmq.server.topic.TopicManager;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A client ID's durable subscriptions belong to the user who created them, across restarts: another user can neither
 * resume nor delete them, nor take the client ID they live under.
 */
class SubscriptionOwnershipTest {

    private static final Identity ALICE = new Identity("alice", Set.of("apps"), "SCRAM-SHA-256");
    private static final Identity BOB = new Identity("bob", Set.of("apps"), "SCRAM-SHA-256");
    private static final WireDestination TOPIC = WireDestination.topic("orders/new");

    private TestServer testServer;

    @BeforeEach
    void start() throws Exception {
        testServer = TestServer.start();
    }

    @AfterEach
    void stop() {
        testServer.close();
    }

    private TopicManager topics() {
        return testServer.server().topicManager();
    }

    private Subscription durable(String clientId, String name, Identity who) {
        return topics().attach(TOPIC, null, Selector.ALL_MATCH, false, true, false, name, clientId, this, who);
    }

    @Test
    void anotherUserCanNeitherResumeNorDeleteADurableSubscriptionNorTakeItsClientIdEvenAfterARestart()
            throws Exception {
        topics().detach(durable("billing", "invoices", ALICE));
        testServer.restart();

        WharfException resume = assertThrows(WharfException.class, () -> durable("billing", "invoices", BOB));
        assertEquals(ErrorCode.NOT_AUTHORISED, resume.code());
        assertEquals("User 'bob' may not use durable subscription 'invoices' of client ID 'billing': it belongs to "
                + "user 'alice', who created it.", resume.getMessage());
        WharfException delete = assertThrows(WharfException.class,
                () -> topics().unsubscribe("billing", "invoices", BOB));
        assertEquals(ErrorCode.NOT_AUTHORISED, delete.code());
        WharfException clientId = assertThrows(WharfException.class, () -> topics().checkClientId("billing", BOB));
        assertEquals("User 'bob' may not use client ID 'billing': it holds durable subscription 'invoices' of user "
                + "'alice'. Choose another client ID.", clientId.getMessage());

        topics().checkClientId("billing", ALICE);
        topics().detach(durable("billing", "invoices", ALICE));
        topics().unsubscribe("billing", "invoices", ALICE);
        topics().checkClientId("billing", BOB); // nothing of alice's left under it
    }

    @Test
    void aSubscriptionAnAnonymousClientMadeIsAnyonesAndTheServerMayUseEveryone() {
        topics().detach(durable("shared-id", "open", Identity.ANONYMOUS));
        topics().detach(durable("shared-id", "open", BOB));
        topics().detach(durable("alices", "mine", ALICE));
        topics().detach(durable("alices", "mine", Identity.SERVER));
        topics().unsubscribe("shared-id", "open", ALICE);
    }
}
