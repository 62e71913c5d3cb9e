package org.wharfmq.server.security.file;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.security.Authenticator;

import javax.security.auth.x500.X500Principal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/** The security file's keys, its defaults, and the errors that name what is wrong. */
class SecurityFileTest {

    static final String ALICE = ScramCredential.create("alice-pw".toCharArray(), 4096, new SecureRandom()).verifier();

    @TempDir
    Path dir;

    @Test
    void usersGroupsAnonymousAndJaasAreRead() {
        SecurityFile f = SecurityFile.parse("""
                # comments are fine
                users:
                  alice:
                    password: "%s"
                    groups: [apps, admins]
                  bob:
                    password: "%s"
                allowAnonymous: true
                jaas:
                  entry: WharfLdap
                  groupsFrom: [com.sun.security.auth.LdapPrincipal]
                permissions:
                  - queue: "**"
                    send: [group:apps]
                certificateUsers:
                  "CN=billing,O=Example": bob
                """.formatted(ALICE, ALICE));
        assertEquals(List.of("alice", "bob"), List.copyOf(f.users().keySet()));
        assertEquals(Set.of("apps", "admins"), f.users().get("alice").groups());
        assertEquals(ScramCredential.parse(ALICE), f.users().get("alice").credential());
        assertEquals(Set.of(), f.users().get("bob").groups());
        assertTrue(f.allowAnonymous());
        assertEquals(Authenticator.AnonymousAccess.ANYWHERE, f.anonymousAccess());
        assertEquals(new SecurityFile.Jaas("WharfLdap", List.of("com.sun.security.auth.LdapPrincipal")), f.jaas());
        assertEquals(Map.of(new X500Principal("CN=billing,O=Example"), "bob"), f.certificateUsers());
    }

    @Test
    void certificateSubjectsCompareAsX500NamesNotAsStrings() {
        SecurityFile f = SecurityFile.parse("users:\n  alice:\n    password: \"" + ALICE + "\"\n"
                + "certificateUsers:\n  \"cn=Billing, o=Example\": alice\n");
        assertEquals("alice", f.certificateUsers().get(new X500Principal("CN=billing,O=Example")));
        assertNull(f.certificateUsers().get(new X500Principal("O=Example,CN=billing")), "the order of the RDNs matters");
    }

    @Test
    void badCertificateUsersEntriesAreRefusedNamingTheEntry() {
        String alice = "users:\n  alice:\n    password: \"" + ALICE + "\"\n";
        assertError(alice + "certificateUsers: [alice]\n", "'certificateUsers' must map each client certificate's subject");
        assertError(alice + "certificateUsers:\n  \"billing\": alice\n",
                "'certificateUsers.\"billing\"' is not a certificate subject");
        assertError(alice + "certificateUsers:\n  \"CN=billing\": bob\n",
                "'certificateUsers.\"CN=billing\"' names user 'bob', which is not under 'users'");
        assertError(alice + "certificateUsers:\n  \"CN=billing\": [alice]\n",
                "'certificateUsers.\"CN=billing\"' must name a user of 'users'");
        assertError(alice + "certificateUsers:\n  \"CN=billing\": alice\n  \"cn=billing\": alice\n",
                "'certificateUsers.\"cn=billing\"' is the same subject as an earlier entry (mapped to 'alice')");
    }

    @Test
    void anEmptyFileIsTheSecureDefault() {
        SecurityFile f = SecurityFile.parse("# nothing yet\n");
        assertTrue(f.users().isEmpty());
        assertEquals(Authenticator.AnonymousAccess.LOOPBACK, f.anonymousAccess(), "no users: local clients only");
        SecurityFile withUsers = SecurityFile.parse("users:\n  alice:\n    password: \"" + ALICE + "\"\n");
        assertEquals(Authenticator.AnonymousAccess.NOWHERE, withUsers.anonymousAccess(), "users: everyone authenticates");
    }

    @Test
    void mistakesNameTheKey() {
        assertError("alowAnonymous: true\n", "Unknown key 'alowAnonymous'");
        assertError("users:\n  alice:\n    password: \"" + ALICE + "\"\n    group: [a]\n", "Unknown key 'users.alice.group'");
        assertError("users:\n  alice:\n    groups: [a]\n", "'users.alice.password' is missing");
        assertError("users:\n  alice:\n    password: hunter2\n", "'users.alice.password' is not a SCRAM-SHA-256 verifier");
        assertError("allowAnonymous: yes-please\n", "'allowAnonymous' must be true or false");
        assertError("jaas:\n  groupsFrom: [x]\n", "'jaas.entry' must name an entry");
        assertError("users: [alice]\n", "'users' must map each user name");
        assertError("users:\n  alice: {password: \"" + ALICE + "\", groups: apps}\n", "'users.alice.groups' must be a list");
    }

    @Test
    void aClearTextPasswordIsNeverQuoted() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> SecurityFile.parse("users:\n  alice:\n    password: hunter2\n"));
        assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
    }

    @Test
    void loadNamesTheFile() throws Exception {
        Path file = dir.resolve("security.yaml");
        Files.writeString(file, "allowAnonymous: maybe\n");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> SecurityFile.load(file));
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        ConfigurationException missing = assertThrows(ConfigurationException.class, () -> SecurityFile.load(dir.resolve("none.yaml")));
        assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());
    }

    private static void assertError(String yaml, String expected) {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> SecurityFile.parse(yaml), yaml);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void permissionRulesAreReadInOrderAndAFileWithoutThemHasNone() {
        SecurityFile f = SecurityFile.parse("""
                permissions:
                  - queue: "PAYROLL"
                    receive: [user:hr]
                  - queue: "**"
                    receive: [group:apps]
                    send: [group:apps, anyone]
                  - topic: "prices/#"
                    subscribe: [anyone]
                  - connect: [anyone]
                    admin: [group:admins]
                """);
        org.wharfmq.server.security.Identity alice = new org.wharfmq.server.security.Identity("alice",
                java.util.Set.of("apps"), "SCRAM-SHA-256");
        org.wharfmq.server.security.PermissionRules rules = f.permissions();
        assertEquals(4, rules.rules().size());
        assertFalse(rules.allows(alice, org.wharfmq.server.security.Permission.RECEIVE, "PAYROLL"));
        assertTrue(rules.allows(alice, org.wharfmq.server.security.Permission.RECEIVE, "ORDERS"));
        assertTrue(rules.allows(alice, org.wharfmq.server.security.Permission.SUBSCRIBE, "prices/fx/+"));
        assertTrue(rules.allows(alice, org.wharfmq.server.security.Permission.CONNECT, null));
        assertFalse(rules.allows(alice, org.wharfmq.server.security.Permission.ADMIN, null));
        assertNull(SecurityFile.parse("allowAnonymous: false\n").permissions(), "no permissions key: no rules");
    }

    @Test
    void aWrongPermissionRuleIsRefusedNamingTheRuleAndTheFix() {
        assertEquals("permissions rule 2: unknown permission 'read': a rule about queues may grant [send, receive, "
                + "browse, create]", assertThrows(ConfigurationException.class, () -> SecurityFile.parse("""
                permissions:
                  - queue: "A"
                    send: [anyone]
                  - queue: "B"
                    read: [anyone]
                """)).getMessage());
        assertEquals("permissions rule 1: Permission 'publish' is about topics, not queues (rule for 'B').",
                assertThrows(ConfigurationException.class, () -> SecurityFile.parse("""
                        permissions:
                          - queue: "B"
                            publish: [anyone]
                        """)).getMessage());
        assertEquals("permissions rule 1: 'alice' is not a grantee: write user:NAME, group:NAME or anyone.",
                assertThrows(ConfigurationException.class, () -> SecurityFile.parse("""
                        permissions:
                          - queue: "A"
                            send: [alice]
                        """)).getMessage());
        assertEquals("permissions rule 1: Topic pattern 'prices/#/x': + and # must be whole levels, and # only the "
                + "last, as in prices/+/GBP or prices/#.", assertThrows(ConfigurationException.class,
                () -> SecurityFile.parse("permissions:\n  - topic: \"prices/#/x\"\n    subscribe: [anyone]\n"))
                .getMessage());
        assertEquals("permissions rule 1: the rule grants nothing: add a permission such as send: [...]",
                assertThrows(ConfigurationException.class,
                        () -> SecurityFile.parse("permissions:\n  - queue: \"A\"\n")).getMessage());
    }

    /** The sample users read: it loads as it is, and its rules keep the apps out of the billing queues. */
    @Test
    void theSampleSecurityFileLoadsAndMeansWhatItsCommentsSay() {
        SecurityFile sample = SecurityFile.load(java.nio.file.Path.of("../../config/security.yaml"));
        org.wharfmq.server.security.Identity orders = new org.wharfmq.server.security.Identity("orders",
                java.util.Set.of("apps"), "SCRAM-SHA-256");
        org.wharfmq.server.security.Identity billing = new org.wharfmq.server.security.Identity("billing",
                java.util.Set.of("apps"), "SCRAM-SHA-256");
        assertEquals(Authenticator.AnonymousAccess.LOOPBACK, sample.anonymousAccess(), "no users in the sample yet");
        assertFalse(sample.permissions().allows(orders, org.wharfmq.server.security.Permission.RECEIVE, "BILLING.INVOICES"));
        assertTrue(sample.permissions().allows(billing, org.wharfmq.server.security.Permission.RECEIVE, "BILLING.INVOICES"));
        assertTrue(sample.permissions().allows(orders, org.wharfmq.server.security.Permission.SEND, "BILLING.INVOICES"));
        assertFalse(sample.permissions().allows(billing, org.wharfmq.server.security.Permission.ADMIN, null));
    }
}
