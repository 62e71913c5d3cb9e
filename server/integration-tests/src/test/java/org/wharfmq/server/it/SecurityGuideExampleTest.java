package org.wharfmq.server.it;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The worked example of docs/security.md ("two applications over TLS that may not read each other's queues"), run
 * from the guide's own blocks: its wharf.yaml block loaded as the server loads a configuration file (the key store
 * path pointed at a test certificate, the ports made free ones), its {@code bin/wharf user add} lines done with the
 * same editor the command uses, its permissions block as the security file's rules; then what the guide says happens.
 * A change to the guide that stops being true fails here.
 */
class SecurityGuideExampleTest {

    private static final Path GUIDE = Path.of(System.getProperty("wharf.root"), "docs", "security.md");
    private static final String SECTION = "## Worked example: two applications over TLS";

    @TempDir
    Path dir;
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    @Timeout(60)
    void twoApplicationsOverTlsMayNotReadEachOthersQueues() throws Exception {
        String section = section(Files.readString(GUIDE));
        List<String> yaml = blocks(section, "yaml");
        List<String> sh = blocks(section, "sh");
        assertEquals(2, yaml.size(), "the guide's wharf.yaml and security.yaml blocks");

        TestCertificates.Issued ca = TestCertificates.ca("Example CA");
        Path serverStore = TestCertificates.issue(ca, "CN=localhost", Duration.ofDays(30), "localhost", "127.0.0.1")
                .pkcs12(dir.resolve("server.p12"));
        Path trust = TestCertificates.trustStore(dir.resolve("trust.p12"), ca.certificate());

        Path config = Files.createDirectories(dir.resolve("config"));
        Path wharfYaml = config.resolve("wharf.yaml");
        Files.writeString(wharfYaml, "port: 0\n" + yaml.get(0)
                .replace("config/tls/server.p12", serverStore.toString())
                .replace("changeit", TestCertificates.PASSWORD)
                .replace("tls:\n", "tls:\n  port: 0\n"));
        Path securityYaml = config.resolve("security.yaml");
        Files.writeString(securityYaml, "users:\n\n" + yaml.get(1));
        UsersFileEditor users = UsersFileEditor.open(securityYaml);
        for (String line : sh.get(0).split("\n")) { // bin/wharf user add NAME --groups G
            List<String> words = Arrays.asList(line.trim().split("\\s+"));
            assertEquals(List.of("bin/wharf", "user", "add"), words.subList(0, 3), line);
            users.put(words.get(3), ScramCredential.create((words.get(3) + "-pw").toCharArray(), 4096, new SecureRandom()),
                    List.of(words.get(words.indexOf("--groups") + 1).split(",")));
        }
        users.save();

        ServerConfig server = ConfigurationFile.load(wharfYaml).server().toBuilder().dataDirectory(dir.resolve("data")).build();
        assertEquals(securityYaml.toAbsolutePath(), server.securityFile(), "securityFile is relative to wharf.yaml's directory");
        SecurityFileRealm realm = SecurityFileRealm.open(server.securityFile());
        open.add(realm);
        WharfServer wharf = WharfServer.builder(server).authenticator(realm).accessControl(realm.accessControl()).start();
        open.add(wharf);
        assertEquals(1, wharf.networkUrls().size(), "TLS only: " + wharf.networkUrls());
        assertTrue(wharf.networkUrls().get(0).startsWith("ssl://"), wharf.networkUrls().toString());

        WharfConnectionFactory factory = new WharfConnectionFactory(wharf.tlsUrl() + "?trustStore=" + trust
                + "&trustStorePassword=" + TestCertificates.PASSWORD);
        try (Connection billing = factory.createConnection("billing", "billing-pw");
             Connection orders = factory.createConnection("orders", "orders-pw")) {
            Session b = billing.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Session o = orders.createSession(false, Session.AUTO_ACKNOWLEDGE);
            o.createProducer(o.createQueue("BILLING.INVOICES")).send(o.createTextMessage("invoice 1"));
            b.createProducer(b.createQueue("ORDERS.CONFIRMED")).send(b.createTextMessage("paid 1"));
            billing.start();
            orders.start();
            TextMessage invoice = (TextMessage) b.createConsumer(b.createQueue("BILLING.INVOICES")).receive(10_000);
            assertNotNull(invoice, "billing reads its own queue");
            assertEquals("invoice 1", invoice.getText());
            assertNotNull(o.createConsumer(o.createQueue("ORDERS.CONFIRMED")).receive(10_000), "orders reads its own queue");

            JMSSecurityException denied = assertThrows(JMSSecurityException.class,
                    () -> b.createConsumer(b.createQueue("ORDERS.CONFIRMED")));
            assertEquals("User 'billing' may not receive from queue 'ORDERS.CONFIRMED': no 'receive' permission is granted "
                    + "to it. Ask an administrator to grant 'receive' on queue 'ORDERS.CONFIRMED' to user:billing in "
                    + "the security file's permissions.", denied.getMessage());
            assertThrows(JMSSecurityException.class, () -> o.createConsumer(o.createQueue("BILLING.INVOICES")));
            assertThrows(JMSSecurityException.class, () -> o.createProducer(o.createQueue("PAYROLL.IN")),
                    "a queue outside BILLING.* and ORDERS.* is refused to both");
        }
        assertThrows(JMSSecurityException.class, () -> factory.createConnection().close(), "a client without a user");
        JMSException untrusting = assertThrows(JMSException.class,
                () -> new WharfConnectionFactory(wharf.tlsUrl()).createConnection("billing", "billing-pw").close());
        assertTrue(untrusting.getMessage().contains("certificate"), untrusting.getMessage());
    }

    private static String section(String guide) {
        int start = guide.indexOf(SECTION);
        assertTrue(start >= 0, "docs/security.md has the section '" + SECTION + "'");
        int end = guide.indexOf("\n## ", start + SECTION.length());
        return guide.substring(start, end < 0 ? guide.length() : end);
    }

    private static List<String> blocks(String text, String language) {
        List<String> blocks = new ArrayList<>();
        Matcher m = Pattern.compile("```" + language + "\n(.*?)```", Pattern.DOTALL).matcher(text);
        while (m.find()) {
            blocks.add(m.group(1));
        }
        return blocks;
    }
}
