package org.wharfmq.server.channels;

import org.junit.jupiter.api.Test;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.AccessPolicy;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Permission;
import org.wharfmq.server.security.PermissionRules;

import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A receiver asks the queue manager's rules whether its partner may send to a destination once per destination, not
 * per message, and asks again once the rules change (a reloaded security file).
 */
class SendVerdictsTest {

    private static final Identity PARTNER = new Identity("qm1", Set.of(), "SCRAM-SHA-256");

    /** The rules, counting how often they are asked. */
    private static AccessPolicy counted(AccessPolicy rules, AtomicInteger asked) {
        return (who, what, destination) -> {
            asked.incrementAndGet();
            return rules.allows(who, what, destination);
        };
    }

    @Test
    void eachDestinationIsAskedOnceWhileTheRulesStayTheSameAndAgainOnceTheyChange() {
        AtomicInteger asked = new AtomicInteger();
        AccessControl control = new AccessControl(counted(PermissionRules.builder()
                .queue("ORDERS.*", Permission.SEND, "user:qm1").build(), asked), "security file test.yaml");
        SendVerdicts verdicts = new SendVerdicts(control, PARTNER);
        for (int i = 0; i < 100; i++) {
            assertTrue(verdicts.allows("ORDERS.1"));
            assertTrue(verdicts.allows("ORDERS.2"));
            assertFalse(verdicts.allows("PAYROLL"));
        }
        assertEquals(3, asked.get(), "one question per destination");

        control.replace(counted(PermissionRules.builder().queue("ORDERS.2", Permission.SEND, "user:qm1").build(),
                asked), "security file test.yaml, reloaded");
        assertFalse(verdicts.allows("ORDERS.1"), "the reloaded rules took the permission away");
        assertTrue(verdicts.allows("ORDERS.2"));
        assertEquals(5, asked.get(), "asked again under the new rules");
    }

    @Test
    void pastItsLimitItForgetsWhatItWasToldAndAsksAgain() {
        AtomicInteger asked = new AtomicInteger();
        AccessControl control = new AccessControl(counted(AccessPolicy.ALLOW_ALL, asked), "no security file");
        SendVerdicts verdicts = new SendVerdicts(control, PARTNER);
        for (int i = 0; i < ChannelConfiguration.MAX_SEND_VERDICTS; i++) {
            assertTrue(verdicts.allows("Q." + i));
        }
        assertTrue(verdicts.allows("Q.0"));
        assertEquals(ChannelConfiguration.MAX_SEND_VERDICTS, asked.get(), "all remembered up to the limit");
        assertTrue(verdicts.allows("Q.NEW"));
        assertTrue(verdicts.allows("Q.0"));
        assertEquals(ChannelConfiguration.MAX_SEND_VERDICTS + 2, asked.get(), "forgotten past it, asked again");
    }
}
