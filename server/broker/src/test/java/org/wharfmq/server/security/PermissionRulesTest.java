package org.wharfmq.server.security;

import org.junit.jupiter.api.Test;
import org.wharfmq.server.config.ConfigurationException;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PermissionRulesTest {

    private static final Identity ALICE = new Identity("alice", Set.of("apps"), "SCRAM-SHA-256");
    private static final Identity HR = new Identity("hr", Set.of(), "SCRAM-SHA-256");

    @Test
    void theFirstRuleThatGrantsAPermissionOnAMatchingDestinationDecides() {
        PermissionRules rules = PermissionRules.builder()
                .queue("PAYROLL", Permission.RECEIVE, "user:hr")
                .queue("**", Permission.RECEIVE, "group:apps")
                .queue("**", Permission.SEND, "anyone")
                .build();
        assertFalse(rules.allows(ALICE, Permission.RECEIVE, "PAYROLL"), "the narrow rule first keeps the apps out");
        assertTrue(rules.allows(HR, Permission.RECEIVE, "PAYROLL"));
        assertTrue(rules.allows(ALICE, Permission.RECEIVE, "ORDERS"));
        assertFalse(rules.allows(HR, Permission.RECEIVE, "ORDERS"), "hr is not in apps");
        assertTrue(rules.allows(Identity.ANONYMOUS, Permission.SEND, "PAYROLL"), "a rule about receive does not decide send");
        assertFalse(rules.allows(ALICE, Permission.BROWSE, "ORDERS"), "no rule grants browse: denied");
        assertFalse(rules.allows(ALICE, Permission.ADMIN, null));
    }

    @Test
    void aGranteeIsAUserAGroupOrAnyoneAndAnAnonymousClientIsNoUser() {
        assertTrue(PermissionRules.Grantee.parse("user:alice").includes(ALICE));
        assertTrue(PermissionRules.Grantee.parse("group:apps").includes(ALICE));
        assertFalse(PermissionRules.Grantee.parse("group:apps").includes(HR));
        assertTrue(PermissionRules.Grantee.parse("anyone").includes(Identity.ANONYMOUS));
        assertFalse(PermissionRules.Grantee.parse("user:alice").includes(Identity.ANONYMOUS));
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> PermissionRules.Grantee.parse("alice"));
        assertEquals("'alice' is not a grantee: write user:NAME, group:NAME or anyone.", e.getMessage());
    }

    @Test
    void aRuleMayGrantOnlyPermissionsAboutWhatItsPatternMatches() {
        Map<Permission, List<PermissionRules.Grantee>> publish = new EnumMap<>(Permission.class);
        publish.put(Permission.PUBLISH, List.of(PermissionRules.Grantee.ANYONE));
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> new PermissionRules.Rule(DestinationPattern.queue("ORDERS"), publish));
        assertEquals("Permission 'publish' is about topics, not queues (rule for 'ORDERS').", e.getMessage());
        Map<Permission, List<PermissionRules.Grantee>> admin = new EnumMap<>(Permission.class);
        admin.put(Permission.ADMIN, List.of(PermissionRules.Grantee.ANYONE));
        assertThrows(ConfigurationException.class, () -> new PermissionRules.Rule(DestinationPattern.topic("#"), admin));
    }
}
