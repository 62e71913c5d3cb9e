package org.wharfmq.server.it;

import org.wharfmq.server.TestCertificates;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.TlsConfig;
import org.wharfmq.server.security.file.SecurityFileRealm;
import org.wharfmq.server.store.InMemoryMessageStore;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.JMSSecurityException;
import javax.jms.Message;
import javax.jms.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The EXTERNAL mechanism over a real TLS listener: a client certificate whose subject the security file maps to a user
 * (certificateUsers) logs in as that user without a password, with client certificates required and optional; an
 * unmapped certificate, and a user name other than the mapped one, are refused saying why and what fixes it; SCRAM
 * still works on the same listener.
 */
@Timeout(60)
class CertificateLoginTest {

    /** The billing certificate's subject as RFC 2253 writes it (as the server's messages and log name it). */
    private static String billingSubject;
    private static String unmappedSubject;

    @TempDir
    static Path dir;
    private static Path serverStore;
    private static Path serverCa;
    private static Path clientCa;
    /** Subject {@code CN=billing,O=Example}: mapped to user billing-app. */
    private static Path billingStore;
    /** Subject {@code CN=intruder,O=Example}, issued by the same trusted CA: mapped to nobody. */
    private static Path unmappedStore;

    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeAll
    static void certificates() throws Exception {
        TestCertificates.Issued serverAuthority = TestCertificates.ca("server CA");
        TestCertificates.Issued clientAuthority = TestCertificates.ca("client CA");
        serverStore = TestCertificates.issue(serverAuthority, "CN=wharf-test-server,O=Wharf Test", Duration.ofDays(30),
                "127.0.0.1").pkcs12(dir.resolve("server.p12"));
        serverCa = TestCertificates.trustStore(dir.resolve("server-ca.p12"), serverAuthority.certificate());
        clientCa = clientAuthority.certificatePem(dir.resolve("client-ca.crt"));
        Duration valid = Duration.ofDays(30);
        TestCertificates.Issued billing = TestCertificates.issue(clientAuthority, "CN=billing,O=Example", valid);
        billingSubject = billing.certificate().getSubjectX500Principal().getName();
        billingStore = billing.pkcs12(dir.resolve("billing.p12"));
        TestCertificates.Issued unmapped = TestCertificates.issue(clientAuthority, "CN=intruder,O=Example", valid);
        unmappedSubject = unmapped.certificate().getSubjectX500Principal().getName();
        unmappedStore = unmapped.pkcs12(dir.resolve("intruder.p12"));
    }

    @AfterEach
    void closeAll() {
        for (int i = open.size() - 1; i >= 0; i--) {
            Closing.closeWithin(open.get(i), "resource");
        }
    }

    @ParameterizedTest
    @EnumSource(value = TlsConfig.ClientAuth.class, names = {"REQUIRED", "OPTIONAL"})
    void mappedCertificateLogsInAsItsUserAndTheRulesForThatUserApply(TlsConfig.ClientAuth clientAuth) throws Exception {
        WharfServer wharf = start(clientAuth);
        Connection billing = connect(url(wharf, billingStore), null);
        Session session = billing.createSession(false, Session.AUTO_ACKNOWLEDGE);
        session.createProducer(session.createQueue("BILLING.IN")).send(session.createTextMessage("invoice"));
        Message received = session.createConsumer(session.createQueue("BILLING.IN")).receive(10_000);
        assertEquals("billing-app", received.getStringProperty("JMSXUserID"), "the server set the certificate's user");
        JMSSecurityException denied = assertThrows(JMSSecurityException.class,
                () -> session.createConsumer(session.createQueue("PAYROLL.IN")));
        assertEquals("User 'billing-app' may not receive from queue 'PAYROLL.IN': no 'receive' permission is granted to"
                + " it. Ask an administrator to grant 'receive' on queue 'PAYROLL.IN' to user:billing-app in the "
                + "security file's permissions.", denied.getMessage());

        // the mapped user's own name is accepted as well
        connect(url(wharf, billingStore), "billing-app").createSession(false, Session.AUTO_ACKNOWLEDGE).close();
    }

    @ParameterizedTest
    @EnumSource(value = TlsConfig.ClientAuth.class, names = {"REQUIRED", "OPTIONAL"})
    void unmappedCertificateIsRefusedNamingItsSubjectAndTheFix(TlsConfig.ClientAuth clientAuth) throws Exception {
        WharfServer wharf = start(clientAuth);
        JMSSecurityException e = assertThrows(JMSSecurityException.class,
                () -> connect(url(wharf, unmappedStore), null));
        assertEquals("Authentication failed: EXTERNAL (log in by TLS client certificate) is not possible on this"
                + " connection: its client certificate's subject '" + unmappedSubject + "' is mapped to no user; add it"
                + " under certificateUsers in the server's security file (\"" + unmappedSubject + "\": USER).",
                e.getMessage());
        // with a password, the same certificate falls back to SCRAM
        connect(url(wharf, unmappedStore), "payroll-app", "payroll-pw").createSession(false, Session.AUTO_ACKNOWLEDGE);
    }

    @ParameterizedTest
    @EnumSource(value = TlsConfig.ClientAuth.class, names = {"REQUIRED", "OPTIONAL"})
    void aUserNameOtherThanTheMappedOneIsRefused(TlsConfig.ClientAuth clientAuth) throws Exception {
        WharfServer wharf = start(clientAuth);
        JMSSecurityException e = assertThrows(JMSSecurityException.class,
                () -> connect(url(wharf, billingStore), "payroll-app"));
        assertEquals("Authentication failed for user 'payroll-app': this client's certificate (subject '"
                + billingSubject + "') logs in as user 'billing-app'; connect without a user name or as 'billing-app'"
                + " (to log in as 'payroll-app', give its password).", e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(value = TlsConfig.ClientAuth.class, names = {"REQUIRED", "OPTIONAL"})
    void scramStillWorksOnTheSameListener(TlsConfig.ClientAuth clientAuth) throws Exception {
        WharfServer wharf = start(clientAuth);
        Connection payroll = connect(url(wharf, billingStore), "payroll-app", "payroll-pw");
        Session session = payroll.createSession(false, Session.AUTO_ACKNOWLEDGE);
        session.createProducer(session.createQueue("PAYROLL.IN")).send(session.createTextMessage("payslip"));
        assertEquals("payroll-app", session.createConsumer(session.createQueue("PAYROLL.IN")).receive(10_000)
                .getStringProperty("JMSXUserID"), "a password chooses SCRAM even with a mapped certificate");
        assertThrows(JMSSecurityException.class, () -> session.createConsumer(session.createQueue("BILLING.IN")));
    }

    // ---- helpers ----

    /** A TLS-only server trusting the client CA, with the security file's users, mapping and permissions. */
    private WharfServer start(TlsConfig.ClientAuth clientAuth) throws Exception {
        Path file = dir.resolve("security.yaml");
        Files.writeString(file, "users:\n"
                + "  billing-app:\n    password: \"" + verifier("billing-pw") + "\"\n    groups: [billing]\n"
                + "  payroll-app:\n    password: \"" + verifier("payroll-pw") + "\"\n    groups: [hr]\n"
                + "certificateUsers:\n"
                // written otherwise than the certificate's RFC 2253 form: subjects compare as X.500 names
                + "  \"" + billingSubject.toLowerCase(java.util.Locale.ROOT).replace(",", ", ") + "\": billing-app\n"
                + "permissions:\n"
                + "  - queue: \"BILLING.*\"\n    send: [user:billing-app]\n    receive: [user:billing-app]\n"
                + "  - queue: \"PAYROLL.*\"\n    send: [group:hr]\n    receive: [group:hr]\n"
                + "  - connect: [anyone]\n");
        SecurityFileRealm realm = SecurityFileRealm.open(file);
        open.add(realm);
        TlsConfig tls = TlsConfig.builder().port(0).engine(TlsConfig.Engine.JDK).plain(false)
                .keyStore(serverStore).keyStorePassword(TestCertificates.PASSWORD)
                .clientAuth(clientAuth).trustCertificates(clientCa).build();
        TestServer testServer = TestServer.start(b -> b.tls(tls).queue("BILLING.IN").queue("PAYROLL.IN"),
                c -> WharfServer.builder(c).store(new InMemoryMessageStore()).authenticator(realm)
                        .accessControl(realm.accessControl()).start());
        open.add(testServer);
        return testServer.server();
    }

    private static String verifier(String password) {
        return ScramCredential.create(password.toCharArray(), 4096, new SecureRandom()).verifier();
    }

    private static String url(WharfServer wharf, Path keyStore) {
        return wharf.tlsUrl() + "?trustStore=" + serverCa + "&trustStorePassword=" + TestCertificates.PASSWORD
                + "&keyStore=" + keyStore + "&keyStorePassword=" + TestCertificates.PASSWORD;
    }

    private Connection connect(String url, String user) throws JMSException {
        return connect(url, user, null);
    }

    private Connection connect(String url, String user, String password) throws JMSException {
        Connection connection = new WharfConnectionFactory(url).createConnection(user, password);
        open.add(connection);
        connection.start();
        return connection;
    }
}
