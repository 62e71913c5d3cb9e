package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.cli.ConfigurationFile;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.security.file.SecurityFileRealm;
import org.wharfmq.server.security.file.UsersFileEditor;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.JMSSecurityException;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The secured example, {@code config/examples/secured} (docs/security.md, "Worked example: two applications over
 * TLS"), done as its files say, in a copy of the folder: its {@code make-keys.sh} makes the keys with the JDK's
 * keytool (a self-signed certificate, then one signed by a private CA), the users its {@code security.yaml} lists
 * are added with the editor {@code bin/wharf user add} uses, and the server starts from its {@code wharf.yaml}
 * through {@link ConfigurationFile}, as {@code wharf server --config} does (only the TLS port made a free one and
 * the data put in the test's directory). Then app1 and app2 each use their own queues and topics over
 * {@code ssl://127.0.0.1} and {@code ssl://localhost} and are refused the other's. A change to those files that
 * stops this being true fails here.
 */
class SecuredExampleTest {

    private static final Path EXAMPLE = ExampleFolders.of("secured");
    private static final String TLS_PORT = "\n  port: 7415\n";

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"self-signed", "private-ca"})
    @Timeout(180)
    void twoApplicationsOverTlsUseTheirOwnQueuesAndAreRefusedEachOthers(String keys) throws Exception {
        Path example = ExampleFolders.copy(EXAMPLE, dir.resolve("secured"));
        makeKeys(example, keys, Map.of());
        ConfigurationFile file = configure(example);
        ServerConfig config = file.server().toBuilder().dataDirectory(dir.resolve("data")).build();
        try (SecurityFileRealm realm = SecurityFileRealm.open(file.security().file());
             WharfServer wharf = WharfServer.builder(config).authenticator(realm).accessControl(realm.accessControl())
                     .start()) {
            assertEquals(1, wharf.networkUrls().size(), "TLS only: " + wharf.networkUrls());
            String trust = "?trustStore=" + example.resolve("tls/trust.p12") + "&trustStorePassword=changeit";
            assertTrue(wharf.tlsUrl().startsWith("ssl://127.0.0.1:"), wharf.tlsUrl());
            WharfConnectionFactory byAddress = new WharfConnectionFactory(wharf.tlsUrl() + trust);
            WharfConnectionFactory byName = new WharfConnectionFactory("ssl://localhost:" + wharf.tlsPort() + trust);
            try (Connection app1 = byAddress.createConnection("app1", password("app1"));
                 Connection app2 = byName.createConnection("app2", password("app2"))) {
                usesItsOwn(app1, "APP1.ORDERS");
                usesItsOwn(app2, "APP2.ORDERS");
                isRefused(app1, "app1", "APP2.ORDERS", "app2/prices");
                isRefused(app2, "app2", "APP1.ORDERS", "app1/prices");
            }
            try (Connection ops = byAddress.createConnection("ops", password("ops"))) { // connect: names the admins
                ops.createSession(false, Session.AUTO_ACKNOWLEDGE).close();
            }
            assertThrows(JMSSecurityException.class, () -> byAddress.createConnection().close(), "no user, no entry");
            JMSException untrusting = assertThrows(JMSException.class,
                    () -> new WharfConnectionFactory(wharf.tlsUrl()).createConnection("app1", password("app1")).close());
            assertTrue(untrusting.getMessage().contains("certificate"), untrusting.getMessage());
        }
    }

    /**
     * A certificate names the host as the client writes it: made for another address (IP=192.0.2.1), the server is
     * refused at ssl://127.0.0.1, saying so, and still reached at ssl://localhost, the name it holds.
     */
    @Test
    @Timeout(180)
    void aCertificateWithoutTheAddressAmongItsNamesIsRefusedAtThatAddress() throws Exception {
        Path example = ExampleFolders.copy(EXAMPLE, dir.resolve("secured"));
        makeKeys(example, "self-signed", Map.of("IP", "192.0.2.1"));
        ConfigurationFile file = configure(example);
        ServerConfig config = file.server().toBuilder().dataDirectory(dir.resolve("data")).build();
        try (SecurityFileRealm realm = SecurityFileRealm.open(file.security().file());
             WharfServer wharf = WharfServer.builder(config).authenticator(realm).accessControl(realm.accessControl())
                     .start()) {
            String trust = "?trustStore=" + example.resolve("tls/trust.p12") + "&trustStorePassword=changeit";
            JMSException refused = assertThrows(JMSException.class, () -> new WharfConnectionFactory(wharf.tlsUrl()
                    + trust).createConnection("app1", password("app1")).close());
            assertTrue(refused.getMessage().contains("No subject alternative names matching IP address 127.0.0.1"),
                    refused.getMessage());
            new WharfConnectionFactory("ssl://localhost:" + wharf.tlsPort() + trust)
                    .createConnection("app1", password("app1")).close();
        }
    }

    /** The users added, the TLS port made a free one, the data in the test's directory; loaded as wharf server does. */
    private ConfigurationFile configure(Path example) throws IOException {
        addUsers(example.resolve("security.yaml"));
        Path wharfYaml = example.resolve("wharf.yaml");
        String yaml = Files.readString(wharfYaml);
        assertTrue(yaml.contains(TLS_PORT), "the example's TLS port, made a free one here");
        Files.writeString(wharfYaml, yaml.replace(TLS_PORT, "\n  port: 0\n"));
        return ConfigurationFile.load(wharfYaml);
    }

    /**
     * docs/security.md shows make-keys.sh's keytool commands for a server mq1.example.com at 10.0.0.5: each is the
     * script's, with those values for its variables.
     */
    @Test
    void theGuideShowsTheScriptsKeytoolCommands() throws IOException {
        String guide = Files.readString(Path.of(System.getProperty("wharf.root"), "docs", "security.md"));
        int section = guide.indexOf("### Making the keys");
        assertTrue(section >= 0, "docs/security.md has the section 'Making the keys'");
        List<String> shown = keytoolCommands(guide.substring(section, guide.indexOf("\n## ", section)));
        List<String> script = keytoolCommands(Files.readString(EXAMPLE.resolve("make-keys.sh"))
                .replace("$host", "mq1.example.com").replace("$ip", "10.0.0.5").replace("\"$pass\"", "changeit"));
        assertEquals(10, shown.size(), "three self-signed, seven private-CA commands: " + shown);
        assertEquals(script, shown);
    }

    /** The keytool commands of a text, a command continued over lines with a backslash as one, spaces made single. */
    private static List<String> keytoolCommands(String text) {
        return Arrays.stream(text.replace("\\\n", " ").split("\n")).map(line -> line.trim().replaceAll("\\s+", " "))
                .filter(line -> line.startsWith("keytool ") || line.startsWith("| keytool ")).toList();
    }

    private static void usesItsOwn(Connection connection, String queue) throws JMSException {
        connection.start();
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        session.createProducer(session.createQueue(queue)).send(session.createTextMessage("for " + queue));
        TextMessage received = (TextMessage) session.createConsumer(session.createQueue(queue)).receive(10_000);
        assertNotNull(received, queue);
        assertEquals("for " + queue, received.getText());
        session.close();
    }

    private static void isRefused(Connection connection, String user, String queue, String topic) throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        JMSSecurityException receive = assertThrows(JMSSecurityException.class,
                () -> session.createConsumer(session.createQueue(queue)));
        assertTrue(receive.getMessage().startsWith("User '" + user + "' may not receive from queue '" + queue + "'"),
                receive.getMessage());
        assertThrows(JMSSecurityException.class, () -> session.createBrowser(session.createQueue(queue)));
        assertThrows(JMSSecurityException.class, () -> session.createProducer(session.createQueue(queue)));
        assertThrows(JMSSecurityException.class, () -> session.createConsumer(session.createTopic(topic)));
        assertThrows(JMSSecurityException.class, () -> session.createProducer(session.createTopic(topic)));
        session.close();
    }

    /** Runs the example's make-keys.sh: tls/server.p12 and tls/trust.p12. */
    private static void makeKeys(Path example, String keys, Map<String, String> environment) throws Exception {
        String output = ExampleFolders.makeKeys(example, environment, keys);
        assertTrue(Files.exists(example.resolve("tls/server.p12")) && Files.exists(example.resolve("tls/trust.p12")),
                output);
    }

    /** Adds the users the file's own comment lists ({@code bin/wharf user add NAME --groups G --file ...}). */
    private static void addUsers(Path security) throws IOException {
        UsersFileEditor users = UsersFileEditor.open(security);
        List<String> commands = Files.readAllLines(security).stream().map(String::trim)
                .filter(line -> line.startsWith("#   bin/wharf user add ")).toList();
        assertEquals(3, commands.size(), "app1, app2 and ops: " + commands);
        for (String command : commands) {
            List<String> words = Arrays.asList(command.substring(1).trim().split("\\s+"));
            String name = words.get(3);
            users.put(name, ScramCredential.create(password(name).toCharArray(), 4096, new SecureRandom()),
                    List.of(words.get(words.indexOf("--groups") + 1).split(",")));
        }
        users.save();
    }

    private static String password(String user) {
        return user + "-secret";
    }
}
