package org.wharfmq.server.security.file;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.protocol.auth.ScramCredential;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/** Editing users keeps the rest of the file, comments included, and never writes a file the server would refuse. */
class UsersFileEditorTest {

    private static final ScramCredential PW = ScramCredential.create("pw".toCharArray(), 4096, new SecureRandom());
    private static final ScramCredential PW2 = ScramCredential.create("pw2".toCharArray(), 4096, new SecureRandom());

    @TempDir
    Path dir;

    @Test
    void addReplaceAndRemoveKeepEverythingElse() throws Exception {
        Path file = dir.resolve("security.yaml");
        String head = """
                # Wharf security: who may connect
                allowAnonymous: false   # keep it so

                users:
                  # the order service
                  order-service:
                    password: "%s"
                    groups: [apps]

                permissions:
                  - queue: "**"
                    send: [group:apps]
                """.formatted(PW.verifier());
        Files.writeString(file, head);

        UsersFileEditor editor = UsersFileEditor.open(file);
        editor.put("alice", PW, List.of("apps", "admins"));
        editor.save();
        String text = Files.readString(file);
        assertTrue(text.contains("# Wharf security: who may connect\nallowAnonymous: false   # keep it so\n"), text);
        assertTrue(text.contains("  # the order service\n  order-service:\n"), text);
        assertTrue(text.contains("permissions:\n  - queue: \"**\"\n    send: [group:apps]\n"), text);
        SecurityFile read = SecurityFile.parse(text);
        assertEquals(List.of("order-service", "alice"), List.copyOf(read.users().keySet()));
        assertEquals(Set.of("apps", "admins"), read.users().get("alice").groups());

        editor = UsersFileEditor.open(file);
        editor.put("order-service", PW2, read.users().get("order-service").groups());
        editor.save();
        read = SecurityFile.load(file);
        assertEquals(PW2, read.users().get("order-service").credential(), "passwd replaces the verifier");
        assertEquals(Set.of("apps"), read.users().get("order-service").groups(), "and keeps the groups");
        assertEquals(PW, read.users().get("alice").credential());

        editor = UsersFileEditor.open(file);
        assertTrue(editor.remove("order-service"));
        assertFalse(editor.remove("nobody"));
        editor.save();
        text = Files.readString(file);
        assertEquals(List.of("alice"), List.copyOf(SecurityFile.parse(text).users().keySet()));
        assertTrue(text.contains("permissions:"), text);
        assertFalse(text.contains("order-service:"), text);
    }

    @Test
    void aNewFileIsCreatedReadableByItsOwnerOnly() throws Exception {
        Path file = dir.resolve("conf/security.yaml");
        UsersFileEditor editor = UsersFileEditor.open(file);
        editor.put("alice", PW, List.of());
        editor.save();
        assertEquals(Set.of("alice"), SecurityFile.load(file).users().keySet());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertFalse(Files.readString(file).contains("pw\""), "no clear text");
    }

    @Test
    void aUserNamedLikeAKeyIsNotConfusedWithIt() throws Exception {
        Path file = dir.resolve("security.yaml");
        UsersFileEditor editor = UsersFileEditor.open(file);
        editor.put("alice", PW, List.of("g"));
        editor.put("password", PW2, List.of());
        editor.save();
        SecurityFile read = SecurityFile.load(file);
        assertEquals(PW, read.users().get("alice").credential());
        assertEquals(PW2, read.users().get("password").credential());
    }

    @Test
    void badNamesAndAnInvalidResultAreRefused() throws Exception {
        Path file = dir.resolve("security.yaml");
        Files.writeString(file, "users: {}\nalowAnonymous: true\n");
        UsersFileEditor editor = UsersFileEditor.open(file);
        assertThrows(IllegalArgumentException.class, () -> editor.put("al ice", PW, List.of()));
        assertThrows(IllegalArgumentException.class, () -> editor.put("alice", PW, List.of("a,b")));
        editor.put("alice", PW, List.of());
        Exception e = assertThrows(org.wharfmq.server.config.ConfigurationException.class, editor::save);
        assertTrue(e.getMessage().contains("alowAnonymous"), e.getMessage());
        assertEquals("users: {}\nalowAnonymous: true\n", Files.readString(file), "left as it was");
    }
}
