package org.wharfmq.server.security.file;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.security.Authenticator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.*;

/** The rules in force follow the file: a good change replaces them, a bad one leaves them. */
class SecurityFileRealmTest {

    @TempDir
    Path dir;

    @Test
    void reloadReplacesTheRulesAndABadFileKeepsThem() throws Exception {
        Path file = dir.resolve("security.yaml");
        Files.writeString(file, "users:\n  alice:\n    password: \"" + SecurityFileTest.ALICE + "\"\n");
        try (SecurityFileRealm auth = SecurityFileRealm.open(file, null, 3_600_000)) {
            assertNotNull(auth.user("alice"));
            assertEquals(Authenticator.AnonymousAccess.NOWHERE, auth.anonymousAccess());

            Files.writeString(file, "allowAnonymous: true\n");
            auth.reload();
            assertNull(auth.user("alice"), "the reloaded file has no alice");
            assertEquals(Authenticator.AnonymousAccess.ANYWHERE, auth.anonymousAccess());

            Files.writeString(file, "allowAnonymous: [broken\n");
            assertThrows(ConfigurationException.class, auth::reload);
            assertEquals(Authenticator.AnonymousAccess.ANYWHERE, auth.anonymousAccess(), "a bad file keeps the old rules");
        }
    }

    /** The poller notices a new modification time; the test waits for the rules, not for a time. */
    @Test
    void aChangedFileIsPickedUpByThePoller() throws Exception {
        Path file = dir.resolve("security.yaml");
        Files.writeString(file, "allowAnonymous: false\n");
        Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2020-01-01T00:00:00Z")));
        try (SecurityFileRealm auth = SecurityFileRealm.open(file, null, 10)) {
            assertEquals(Authenticator.AnonymousAccess.LOOPBACK, auth.anonymousAccess());
            Files.writeString(file, "allowAnonymous: true\n");
            Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2021-01-01T00:00:00Z")));
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (auth.anonymousAccess() != Authenticator.AnonymousAccess.ANYWHERE && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(Authenticator.AnonymousAccess.ANYWHERE, auth.anonymousAccess());
        }
    }

    @Test
    void aBadFileAtStartIsAnError() throws Exception {
        Path file = dir.resolve("security.yaml");
        Files.writeString(file, "user: {}\n");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> SecurityFileRealm.open(file));
        assertTrue(e.getMessage().contains("Unknown key 'user'"), e.getMessage());
    }
}
