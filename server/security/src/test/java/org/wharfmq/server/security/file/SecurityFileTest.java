package org.wharfmq.server.security.file;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.security.Authenticator;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Quota;
import org.wharfmq.server.security.QuotaRules;

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
                  - path: "/flows/orders/**"
                    call: [group:apps]
                  - connect: [anyone]
                    admin: [group:admins]
                """);
        org.wharfmq.server.security.Identity alice = new org.wharfmq.server.security.Identity("alice",
                java.util.Set.of("apps"), "SCRAM-SHA-256");
        org.wharfmq.server.security.PermissionRules rules = f.permissions();
        assertEquals(5, rules.rules().size());
        assertTrue(rules.allows(alice, org.wharfmq.server.security.Permission.CALL, "/flows/orders/eu"));
        assertFalse(rules.allows(alice, org.wharfmq.server.security.Permission.CALL, "/flows/payroll"));
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
        assertEquals("permissions rule 1: Permission 'send' is about queues, not paths (rule for '/flows/x').",
                assertThrows(ConfigurationException.class, () -> SecurityFile.parse(
                        "permissions:\n  - path: \"/flows/x\"\n    send: [anyone]\n")).getMessage());
        assertEquals("permissions rule 1: Path pattern 'flows/x' must start with '/', as in /flows/orders or "
                + "/flows/**.", assertThrows(ConfigurationException.class, () -> SecurityFile.parse(
                        "permissions:\n  - path: \"flows/x\"\n    call: [anyone]\n")).getMessage());
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
        assertTrue(sample.permissions().allows(orders, org.wharfmq.server.security.Permission.CALL, "/flows/echo"));
        assertFalse(sample.permissions().allows(org.wharfmq.server.security.Identity.ANONYMOUS,
                org.wharfmq.server.security.Permission.CALL, "/flows/echo"), "no anonymous caller in the sample");
    }
    /**
     * quotas: a user's entry first, then its first group's (file order), then, for an admin, none, then the default
     * entry, then the built-in default; each limit names the entry to change.
     */
    @Test
    void quotasApplyUserThenGroupThenAdminThenDefault() {
        SecurityFile f = SecurityFile.parse("""
                quotas:
                  default: {createdQueues: 100, connections: 10}
                  "group:batch": {createdQueues: 5000, temporaryQueues: unlimited}
                  "group:apps": {createdQueues: 300}
                  "user:alice": {connections: 2}
                  "group:admins": {connections: 50}
                """);
        QuotaRules q = f.quotas();
        Identity alice = identity("alice", "apps", "batch");
        Identity bob = identity("bob");
        Identity ops = identity("ops", "admins");
        assertEquals(new QuotaRules.Limit(CREATED, 5000, "quotas.\"group:batch\".createdQueues"),
                q.limit(alice, false, CREATED), "the first group entry in file order that sets it");
        assertEquals(2, q.limit(alice, false, CONNECTIONS).value());
        assertEquals("quotas.\"user:alice\".connections", q.limit(alice, false, CONNECTIONS).setting());
        assertEquals(QuotaRules.UNLIMITED, q.limit(alice, false, TEMPORARY).value());
        assertEquals(new QuotaRules.Limit(CREATED, 100, "quotas.default.createdQueues"),
                q.limit(bob, false, CREATED));
        assertEquals(new QuotaRules.Limit(TEMPORARY, TEMPORARY.defaultValue(),
                "quotas.default.temporaryQueues"), q.limit(bob, false, TEMPORARY), "the built-in default");
        assertEquals(QuotaRules.UNLIMITED, q.limit(ops, true, CREATED).value(),
                "an admin: unlimited");
        assertEquals(50, q.limit(ops, true, CONNECTIONS).value(), "unless an entry for it sets it");
        assertEquals(100, q.limit(Identity.ANONYMOUS, false, CREATED).value());
        assertEquals(CREATED.defaultValue(), SecurityFile.parse("users: {}\n").quotas().limit(bob, false, CREATED).value(),
                "no quotas key: the built-in defaults");
    }

    @Test
    void clientIdsAreKeptForTheirOwnersByNameOrPattern() {
        SecurityFile f = SecurityFile.parse("""
                clientIds:
                  "orders-*": user:orders
                  "billing": [group:billing, user:ops]
                """);
        QuotaRules q = f.quotas();
        assertEquals("orders-*", q.reservation("orders-eu").pattern());
        assertEquals("orders-*", q.reservation("orders-").pattern());
        assertNull(q.reservation("my-orders-eu"));
        assertNull(q.reservation("billing2"));
        assertTrue(q.reservation("orders-eu").owns(identity("orders")));
        assertFalse(q.reservation("orders-eu").owns(identity("billing", "billing")));
        assertTrue(q.reservation("billing").owns(identity("billing", "billing")));
        assertTrue(q.reservation("billing").owns(identity("ops")));
    }

    @Test
    void wrongQuotasAndClientIdsAreRefusedNamingTheEntry() {
        assertError("quotas:\n  default: {createdQueue: 5}\n", "Unknown key 'quotas.default.createdQueue'. Known keys"
                + " here: createdQueues, temporaryQueues, connections, rejectsPerMinute");
        assertError("quotas:\n  default: {connections: -1}\n", "'quotas.default.connections' must be a number from 0"
                + " or unlimited, was -1");
        assertError("quotas:\n  alice: {connections: 1}\n", "'quotas.alice': write default, user:NAME or group:NAME");
        assertError("quotas:\n  anyone: {connections: 1}\n", "'quotas' has an entry for anyone: write it as 'default'.");
        assertError("quotas: [1]\n", "'quotas' must map default, user:NAME or group:NAME");
        assertError("clientIds:\n  \"a-*\": alice\n", "'clientIds.\"a-*\"': 'alice' is not a grantee");
        assertError("clientIds:\n  \"a-*\": []\n", "'clientIds.\"a-*\"' names nobody");
    }

    /** The yaml examples of docs/security.md's "Quotas" section read as they are. */
    @Test
    void theGuidesQuotaExamplesRead() throws Exception {
        String guide = Files.readString(Path.of("../../docs/security.md"));
        int start = guide.indexOf("\n## Quotas\n");
        assertTrue(start >= 0, "docs/security.md has a Quotas section");
        String section = guide.substring(start, guide.indexOf("\n## ", start + 1));
        java.util.regex.Matcher yaml = java.util.regex.Pattern.compile("```yaml\n(.*?)```", java.util.regex.Pattern.DOTALL)
                .matcher(section);
        int examples = 0;
        while (yaml.find()) {
            SecurityFile.parse(yaml.group(1));
            examples++;
        }
        assertEquals(2, examples);
        QuotaRules sample = SecurityFile.load(Path.of("../../config/security.yaml")).quotas();
        for (Quota quota : Quota.values()) {
            assertEquals(quota.defaultValue(), sample.limit(identity("orders", "apps"), false, quota).value(),
                    "config/security.yaml shows the built-in defaults");
        }
    }

    private static final Quota CREATED = Quota.CREATED_QUEUES;
    private static final Quota TEMPORARY = Quota.TEMPORARY_QUEUES;
    private static final Quota CONNECTIONS = Quota.CONNECTIONS;

    private static Identity identity(String user, String... groups) {
        return new Identity(user, Set.of(groups), "SCRAM-SHA-256");
    }
}
