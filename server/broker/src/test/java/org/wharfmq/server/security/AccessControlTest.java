package org.wharfmq.server.security;

import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.WharfException;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AccessControlTest {

    private static final Identity ALICE = new Identity("alice", Set.of("apps"), "SCRAM-SHA-256");
    private static final Identity ROOT = new Identity("root", Set.of("admins"), "SCRAM-SHA-256");

    private final AccessControl control = new AccessControl(PermissionRules.builder()
            .queue("**", Permission.RECEIVE, "anyone")
            .queue("**", Permission.SEND, "anyone")
            .admin("group:admins")
            .build(), "security file test.yaml");

    @Test
    void theSystemQueuesNeedTheAdminPermissionWhateverTheRulesSayOfQueues() {
        assertTrue(control.allows(ALICE, Permission.RECEIVE, "ORDERS"));
        assertFalse(control.allows(ALICE, Permission.RECEIVE, "SYSTEM.DEAD.LETTER.QUEUE"));
        assertFalse(control.allows(ALICE, Permission.SEND, "SYSTEM.ADMIN.COMMAND.QUEUE"));
        assertTrue(control.allows(ROOT, Permission.SEND, "SYSTEM.ADMIN.COMMAND.QUEUE"));
        assertTrue(control.allows(Identity.SERVER, Permission.BROWSE, "ANYTHING"), "the queue manager's own code");
    }

    @Test
    void aDenialNamesTheUserThePermissionTheDestinationAndWhereTheRulesAre() {
        WharfException e = assertThrows(WharfException.class,
                () -> control.check(ALICE, Permission.BROWSE, "ORDERS", "/10.0.0.7:5000"));
        assertEquals(ErrorCode.NOT_AUTHORISED, e.code());
        assertEquals("User 'alice' may not browse queue 'ORDERS': no 'browse' permission is granted to it by security "
                + "file test.yaml.", e.getMessage());
        WharfException system = assertThrows(WharfException.class,
                () -> control.check(Identity.ANONYMOUS, Permission.RECEIVE, "SYSTEM.DEAD.LETTER.QUEUE", "/10.0.0.7:5000"));
        assertEquals("An anonymous client may not receive from queue 'SYSTEM.DEAD.LETTER.QUEUE': no 'admin' permission "
                + "(the SYSTEM.* queues need the admin permission) is granted to anonymous clients by security file "
                + "test.yaml.", system.getMessage());
    }

    @Test
    void newRulesAnswerTheNextQuestionAndChangeTheGeneration() {
        long before = control.generation();
        control.replace(PermissionRules.builder().build(), "security file test.yaml (reloaded)");
        assertNotEquals(before, control.generation());
        assertFalse(control.allows(ALICE, Permission.RECEIVE, "ORDERS"));
    }

    @Test
    void theQueueManagersOwnTopicsArePublishedByItAloneAndSubscribedToByAdminsOrAGrantThatNamesThem() {
        AccessControl topics = new AccessControl(PermissionRules.builder()
                .topic("#", Permission.SUBSCRIBE, "anyone")
                .topic("#", Permission.PUBLISH, "anyone")
                .topic("$SYS/EVENTS/#", Permission.SUBSCRIBE, "user:monitor")
                .admin("group:admins")
                .build(), "security file test.yaml");
        Identity monitor = new Identity("monitor", Set.of(), "SCRAM-SHA-256");
        String events = "$SYS/EVENTS/QUEUE/#";
        assertFalse(topics.allows(ALICE, Permission.SUBSCRIBE, events), "a grant on # does not take in $SYS");
        assertTrue(topics.allows(monitor, Permission.SUBSCRIBE, events));
        assertTrue(topics.allows(ROOT, Permission.SUBSCRIBE, events));
        assertTrue(topics.allows(ALICE, Permission.SUBSCRIBE, "prices/#"));
        assertFalse(topics.allows(ROOT, Permission.PUBLISH, "$SYS/EVENTS/QUEUE/FULL"), "not even an admin forges one");
        assertTrue(AccessControl.allowAll().allows(ALICE, Permission.SUBSCRIBE, events), "no security file");
        assertFalse(AccessControl.allowAll().allows(ALICE, Permission.PUBLISH, "$SYS/EVENTS/QUEUE/FULL"));
        assertTrue(topics.allows(Identity.SERVER, Permission.PUBLISH, "$SYS/EVENTS/QUEUE/FULL"));
        WharfException forged = assertThrows(WharfException.class,
                () -> topics.check(ROOT, Permission.PUBLISH, "$SYS/EVENTS/QUEUE/FULL", "/10.0.0.7:5000"));
        assertEquals("User 'root' may not publish to topic '$SYS/EVENTS/QUEUE/FULL': the $SYS/... topics are the queue"
                + " manager's own (its events); only it publishes there.", forged.getMessage());
    }
}
