package org.wharfmq.server.security;

import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.LogCapture;
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

    /**
     * A flow's checkpoint queue is reached by admins, and by a rule whose pattern names SYSTEM (the flow host's
     * user's); a rule on every queue ({@code **}) does not reach it, and its grant reaches no other SYSTEM.* queue.
     */
    @Test
    void aFlowsCheckpointQueueNeedsAdminOrARuleThatNamesIt() {
        String checkpoint = "SYSTEM.FLOW.CHECKPOINT.orders.in";
        assertFalse(control.allows(ALICE, Permission.RECEIVE, checkpoint), "a rule on ** reached it");
        assertFalse(control.allows(ALICE, Permission.SEND, checkpoint), "a rule on ** reached it");
        assertTrue(control.allows(ROOT, Permission.SEND, checkpoint));
        WharfException refused = assertThrows(WharfException.class, () -> control.check(ALICE, Permission.SEND,
                checkpoint, "/10.0.0.7:5000"));
        assertTrue(refused.getMessage().contains("a rule on SYSTEM.FLOW.CHECKPOINT.** granting 'send'"),
                refused.getMessage());

        Identity flows = new Identity("flows", Set.of(), "SCRAM-SHA-256");
        AccessControl granted = new AccessControl(PermissionRules.builder()
                .queue("**", Permission.SEND, "anyone")
                .queue("SYSTEM.FLOW.CHECKPOINT.**", Permission.SEND, "user:flows")
                .queue("SYSTEM.FLOW.CHECKPOINT.**", Permission.RECEIVE, "user:flows")
                .admin("group:admins")
                .build(), "security file test.yaml");
        assertTrue(granted.allows(flows, Permission.SEND, checkpoint), "the rule that names it, though ** is first");
        assertTrue(granted.allows(flows, Permission.RECEIVE, checkpoint));
        assertFalse(granted.allows(ALICE, Permission.SEND, checkpoint), "another user");
        assertFalse(granted.allows(flows, Permission.SEND, "SYSTEM.ADMIN.COMMAND.QUEUE"), "another SYSTEM.* queue");
        assertFalse(granted.allows(flows, Permission.SEND, "QM2/" + checkpoint), "another queue manager's");
        assertTrue(granted.allows(ALICE, Permission.SEND, "ORDERS"));
    }

    @Test
    void anotherQueueManagersSystemQueuesNeedTheAdminPermissionToo() {
        assertTrue(control.allows(ALICE, Permission.SEND, "QM2/ORDERS"));
        assertFalse(control.allows(ALICE, Permission.SEND, "QM2/SYSTEM.INTER.QMGR.CONTROL"),
                "a client may not pose as its queue manager to another");
        assertTrue(control.allows(ROOT, Permission.SEND, "QM2/SYSTEM.INTER.QMGR.CONTROL"));
        WharfException refused = assertThrows(WharfException.class, () -> control.check(ALICE, Permission.SEND,
                "QM2/SYSTEM.INTER.QMGR.PUBS", "/10.0.0.7:5000"));
        assertTrue(refused.getMessage().contains("(the SYSTEM.* queues need the admin permission)"),
                refused.getMessage());
    }

    /**
     * The client is told who may not do what on which destination, and the grant that would allow it; the security
     * file's path and the rule that decided go to the audit line only, for the administrators.
     */
    @Test
    void aDenialNamesThePermissionAndTheFixAndOnlyTheAuditLineNamesTheFileAndTheRule() {
        AccessControl control = new AccessControl(PermissionRules.builder()
                .queue("APP1.**", Permission.SEND, "user:app1")
                .admin("group:admins")
                .build(), "security file /opt/wharf/config/security.yaml");
        Identity app2 = new Identity("app2", Set.of("apps"), "SCRAM-SHA-256");
        try (LogCapture audit = LogCapture.of(AuditLog.NAME)) {
            WharfException e = assertThrows(WharfException.class,
                    () -> control.check(app2, Permission.SEND, "APP1.ORDERS", "/10.0.0.7:5000"));
            assertEquals(ErrorCode.NOT_AUTHORISED, e.code());
            assertEquals("User 'app2' may not send to queue 'APP1.ORDERS': no 'send' permission is granted to it. Ask "
                    + "an administrator to grant 'send' on queue 'APP1.ORDERS' to user:app2 in the security file's "
                    + "permissions.", e.getMessage());
            WharfException none = assertThrows(WharfException.class,
                    () -> control.check(app2, Permission.BROWSE, "APP1.ORDERS", "/10.0.0.7:5000"));
            WharfException system = assertThrows(WharfException.class, () -> control.check(Identity.ANONYMOUS,
                    Permission.RECEIVE, "SYSTEM.DEAD.LETTER.QUEUE", "/10.0.0.7:5000"));
            assertEquals("An anonymous client may not receive from queue 'SYSTEM.DEAD.LETTER.QUEUE': no 'admin' "
                    + "permission (the SYSTEM.* queues need the admin permission) is granted to anonymous clients. Ask "
                    + "an administrator to grant 'admin' to anyone in the security file's permissions, or connect as a "
                    + "user that has it.", system.getMessage());
            for (WharfException denial : new WharfException[]{e, none, system}) {
                assertFalse(denial.getMessage().contains("/opt") || denial.getMessage().contains("security.yaml")
                        || denial.getMessage().contains("user:app1"), denial.getMessage());
            }
            assertEquals(java.util.List.of(
                    "WARNING DENIED user 'app2' from /10.0.0.7:5000: send queue 'APP1.ORDERS' (security file "
                            + "/opt/wharf/config/security.yaml: permissions rule 1 decides it (queue 'APP1.**' send: "
                            + "[user:app1]) and does not name the client)",
                    "WARNING DENIED user 'app2' from /10.0.0.7:5000: browse queue 'APP1.ORDERS' (security file "
                            + "/opt/wharf/config/security.yaml: no rule grants 'browse' on it)",
                    "WARNING DENIED an anonymous client from /10.0.0.7:5000: receive queue 'SYSTEM.DEAD.LETTER.QUEUE' "
                            + "(security file /opt/wharf/config/security.yaml: permissions rule 2 decides it (queue manager "
                            + "admin: [group:admins]) and does not name the client)"), audit.lines());
        }
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
