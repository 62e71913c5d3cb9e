package org.wharfmq.server.security;

import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.WharfException;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConnectionAccessTest {

    private static final Identity ALICE = new Identity("alice", Set.of("apps"), "SCRAM-SHA-256");

    /** Rules that allow sending to the queues named, and remember every question asked of them. */
    private static final class Asked implements AccessPolicy {
        final List<String> questions = new ArrayList<>();
        private final Set<String> sendable;

        Asked(String... sendable) {
            this.sendable = Set.of(sendable);
        }

        @Override
        public boolean allows(Identity who, Permission what, String destination) {
            questions.add(what.key() + " " + destination);
            return what == Permission.SEND && sendable.contains(destination);
        }
    }

    /**
     * A name qualified by another queue manager needs send on the transmission queue it goes through: asked of the
     * rules once for a stream of messages through the same one (RR-5's replies), again for another one, and again once
     * the rules change, whose answer then counts.
     */
    @Test
    void aSendThroughATransmissionQueueAsksTheRulesOnceUntilTheQueueOrTheRulesChange() {
        Asked rules = new Asked("QM2.XMIT", "QM3.XMIT");
        AccessControl control = new AccessControl(rules, "security file test.yaml");
        ConnectionAccess access = new ConnectionAccess(ALICE, control, "/10.0.0.7:5000");
        for (int i = 0; i < 3; i++) {
            access.checkSendThrough("QM2.XMIT");
        }
        assertEquals(List.of("send QM2.XMIT"), rules.questions, "asked once for three messages");
        access.checkSendThrough("QM3.XMIT");
        access.checkSendThrough("QM2.XMIT");
        assertEquals(List.of("send QM2.XMIT", "send QM3.XMIT", "send QM2.XMIT"), rules.questions);

        Asked revoked = new Asked("QM3.XMIT");
        control.replace(revoked, "security file test.yaml (reloaded)");
        WharfException refused = assertThrows(WharfException.class, () -> access.checkSendThrough("QM2.XMIT"));
        assertEquals(ErrorCode.NOT_AUTHORISED, refused.code());
        assertTrue(refused.getMessage().startsWith("User 'alice' may not send to queue 'QM2.XMIT'"),
                refused.getMessage());
        assertThrows(WharfException.class, () -> access.checkSendThrough("QM2.XMIT"));
        assertEquals(List.of("send QM2.XMIT", "send QM2.XMIT"), revoked.questions, "a refusal is not remembered");
    }
}
