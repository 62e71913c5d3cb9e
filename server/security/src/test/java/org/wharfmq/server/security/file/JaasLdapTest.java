package org.wharfmq.server.security.file;

import com.unboundid.ldap.listener.InMemoryDirectoryServer;
import com.unboundid.ldap.listener.InMemoryDirectoryServerConfig;
import com.unboundid.ldap.listener.InMemoryListenerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.security.Identity;

import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * PLAIN logins checked by the JDK's own LDAP login module ({@code com.sun.security.auth.module.LdapLoginModule})
 * against a real LDAP server (UnboundID's in-memory directory), configured as docs/security.md documents.
 */
class JaasLdapTest {

    private static InMemoryDirectoryServer directory;
    private static Configuration jaas;

    @BeforeAll
    static void startDirectory() throws Exception {
        InMemoryDirectoryServerConfig config = new InMemoryDirectoryServerConfig("dc=example,dc=com");
        config.setListenerConfigs(InMemoryListenerConfig.createLDAPConfig("ldap", InetAddress.getLoopbackAddress(), 0,
                null));
        config.setSchema(null);
        directory = new InMemoryDirectoryServer(config);
        directory.add("dn: dc=example,dc=com", "objectClass: top", "objectClass: domain", "dc: example");
        directory.add("dn: ou=people,dc=example,dc=com", "objectClass: top", "objectClass: organizationalUnit", "ou: people");
        directory.add("dn: uid=alice,ou=people,dc=example,dc=com", "objectClass: top", "objectClass: inetOrgPerson",
                "uid: alice", "cn: Alice", "sn: A", "userPassword: alice-ldap-pw");
        directory.startListening();
        String url = "ldap://127.0.0.1:" + directory.getListenPort() + "/ou=people,dc=example,dc=com";
        // the entry of docs/security.md's jaas.conf, built in code so the test needs no system property
        Map<String, String> options = Map.of("userProvider", url,
                "authIdentity", "uid={USERNAME},ou=people,dc=example,dc=com", "useSSL", "false");
        jaas = new Configuration() {
            @Override
            public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
                return name.equals("WharfLdap") ? new AppConfigurationEntry[]{new AppConfigurationEntry(
                        "com.sun.security.auth.module.LdapLoginModule",
                        AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, options)} : null;
            }
        };
    }

    @AfterAll
    static void stopDirectory() {
        directory.shutDown(true);
    }

    private static final SecurityFile.Jaas SETTINGS = new SecurityFile.Jaas("WharfLdap",
            List.of("com.sun.security.auth.UserPrincipal"));

    @Test
    void theDirectoryChecksThePasswordAndNamesTheGroups() throws Exception {
        try (JaasAuthenticator ldap = new JaasAuthenticator(SETTINGS, jaas)) {
            Identity alice = ldap.verify("alice", "alice-ldap-pw".toCharArray()).toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertNotNull(alice);
            assertEquals("alice", alice.user());
            assertEquals("PLAIN", alice.mechanism());
            assertEquals(Set.of("alice"), alice.groups(), "the UserPrincipal's name, as groupsFrom asks");
            assertNull(ldap.verify("alice", "wrong".toCharArray()).toCompletableFuture().get(30, TimeUnit.SECONDS));
            assertNull(ldap.verify("nobody", "x".toCharArray()).toCompletableFuture().get(30, TimeUnit.SECONDS));
        }
    }

    /** The security file's jaas: section makes the SecurityFileRealm offer PLAIN and check it with the directory. */
    @Test
    void theSecurityFileWiresTheLoginModule(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("security.yaml");
        Files.writeString(file, "jaas:\n  entry: WharfLdap\n  groupsFrom: [com.sun.security.auth.LdapPrincipal]\n");
        try (SecurityFileRealm auth = SecurityFileRealm.open(file, jaas, 3_600_000)) {
            assertTrue(auth.plainAvailable());
            assertFalse(auth.hasUsers());
            Identity alice = auth.verifyPlain("alice", "alice-ldap-pw".toCharArray()).toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertEquals(Set.of("uid=alice,ou=people,dc=example,dc=com"), alice.groups());
        }
    }
}
