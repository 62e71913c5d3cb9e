package org.wharfmq.server.it;

import org.wharfmq.server.TestCertificates;

import io.netty.handler.ssl.OpenSsl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.TlsConfig;
import org.wharfmq.server.store.InMemoryMessageStore;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.Queue;
import javax.jms.Session;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * TLS between the real client and the real server, with certificates made for the run: both protocol versions and
 * both engines, PKCS#12 and PEM server keys, client certificates required, optional or absent, and each way a
 * handshake can fail (expired, untrusted or wrong-host server certificate, a client certificate missing or not
 * trusted, no protocol in common, plain and TLS clients on each other's ports) refused with an error that says why and
 * what fixes it, while the server goes on serving its other clients.
 */
@Timeout(60)
class TlsTest {

    private static final Duration VALID = Duration.ofDays(30);
    private static final String SERVER_SUBJECT = "CN=wharf-test-server,O=Wharf Test";

    @TempDir
    static Path dir;
    private static TestCertificates.Issued server;
    private static TestCertificates.Issued expired;
    private static TestCertificates.Issued wrongHost;
    private static TestCertificates.Issued client;
    private static TestCertificates.Issued stranger;
    private static Path serverStore;
    /** The client's trust: the CA that issued the server certificates. */
    private static Path serverCa;
    /** The server's trust: the CA that issued the client certificate (another CA issued the stranger's). */
    private static Path clientCa;
    private static Path clientStore;
    private static Path strangerStore;

    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeAll
    static void certificates() throws Exception {
        TestCertificates.Issued serverAuthority = TestCertificates.ca("server CA");
        TestCertificates.Issued clientAuthority = TestCertificates.ca("client CA");
        TestCertificates.Issued otherAuthority = TestCertificates.ca("some other CA");
        server = TestCertificates.issue(serverAuthority, SERVER_SUBJECT, VALID, "127.0.0.1", "localhost");
        expired = TestCertificates.issue(serverAuthority, SERVER_SUBJECT, Duration.ofDays(-1), "127.0.0.1");
        wrongHost = TestCertificates.issue(serverAuthority, SERVER_SUBJECT, VALID, "mq.other.example");
        client = TestCertificates.issue(clientAuthority, "CN=billing,O=Example", VALID);
        stranger = TestCertificates.issue(otherAuthority, "CN=billing,O=Example", VALID);
        serverStore = server.pkcs12(dir.resolve("server.p12"));
        serverCa = TestCertificates.trustStore(dir.resolve("server-ca.p12"), serverAuthority.certificate());
        clientCa = clientAuthority.certificatePem(dir.resolve("client-ca.crt"));
        clientStore = client.pkcs12(dir.resolve("client.p12"));
        strangerStore = stranger.pkcs12(dir.resolve("stranger.p12"));
    }

    @AfterEach
    void closeAll() {
        for (int i = open.size() - 1; i >= 0; i--) {
            Closing.closeWithin(open.get(i), "resource");
        }
    }

    @ParameterizedTest
    @EnumSource(value = TlsConfig.Engine.class, names = {"JDK", "OPENSSL"})
    void tls13AndTls12CarryMessagesOnBothEngines(TlsConfig.Engine engine) throws Exception {
        assumeEngine(engine);
        WharfServer both = start(tls -> tls.engine(engine));
        roundTrip(connect(url(both, "protocols=TLSv1.3")));
        roundTrip(connect(url(both, "protocols=TLSv1.2")));

        WharfServer only12 = start(tls -> tls.engine(engine).protocols(List.of("TLSv1.2")));
        roundTrip(connect(url(only12, "")));
        JMSException e = assertThrows(JMSException.class, () -> connect(url(only12, "protocols=TLSv1.3")));
        assertContains(e, "no TLS protocol version or cipher suite in common");
        assertContains(e, "this client offers [TLSv1.3] (URL option protocols, URL option cipherSuites)");
    }

    @ParameterizedTest
    @EnumSource(value = TlsConfig.Engine.class, names = {"JDK", "OPENSSL"})
    void pemServerKeyPlainOrEncrypted(TlsConfig.Engine engine) throws Exception {
        assumeEngine(engine);
        Path chain = server.certificatePem(dir.resolve("server.crt"));
        Path key = server.keyPem(dir.resolve("server.key"), false);
        Path encrypted = server.keyPem(dir.resolve("server-enc.key"), true);
        WharfServer plainKey = start(tls -> tls.engine(engine).keyStore(null).certificate(chain).privateKey(key));
        roundTrip(connect(url(plainKey, "")));
        WharfServer encryptedKey = start(tls -> tls.engine(engine).keyStore(null).certificate(chain)
                .privateKey(encrypted).privateKeyPassword(TestCertificates.PASSWORD));
        roundTrip(connect(url(encryptedKey, "")));
    }

    @ParameterizedTest
    @EnumSource(value = TlsConfig.Engine.class, names = {"JDK", "OPENSSL"})
    void requiredClientCertificateMustBeOneTheServerTrusts(TlsConfig.Engine engine) throws Exception {
        assumeEngine(engine);
        WharfServer required = start(tls -> tls.engine(engine).clientAuth(TlsConfig.ClientAuth.REQUIRED)
                .trustCertificates(clientCa));
        Connection trusted = connect(url(required, clientKey(clientStore)));

        // the alert, or (when the server closes before the client reads it) the closed connection, with the same fix
        String fix = "set the URL option keyStore to a certificate issued by a CA in the server's tls.trustStore";
        JMSException none = assertThrows(JMSException.class, () -> connect(url(required, "")));
        assertContains(none, "Cannot connect to Wharf at " + required.tlsUrl() + ": the ");
        assertContains(none, fix);
        assertTrue(none.getMessage().contains("requires a client certificate and this client has none")
                || none.getMessage().contains("when the client has no certificate"), none.getMessage());
        JMSException untrusted = assertThrows(JMSException.class, () -> connect(url(required, clientKey(strangerStore))));
        assertContains(untrusted, fix);
        assertContains(untrusted, "this client's certificate (keyStore " + strangerStore + ")");

        roundTrip(trusted); // opened before the refusals, and still served
    }

    @Test
    void optionalClientCertificateMayBeLeftOut() throws Exception {
        WharfServer optional = start(tls -> tls.clientAuth(TlsConfig.ClientAuth.OPTIONAL).trustCertificates(clientCa));
        roundTrip(connect(url(optional, "")));
        roundTrip(connect(url(optional, clientKey(clientStore))));
    }

    @Test
    void expiredUntrustedAndWrongHostServerCertificatesAreRefusedSayingWhy() throws Exception {
        Path expiredStore = expired.pkcs12(dir.resolve("expired.p12"));
        WharfServer expiredServer = start(tls -> tls.keyStore(expiredStore));
        JMSException e = assertThrows(JMSException.class, () -> connect(url(expiredServer, "")));
        assertContains(e, "Cannot connect to Wharf at " + expiredServer.tlsUrl() + ": the server's TLS certificate has expired");
        assertContains(e, "the server's operator must renew it");

        WharfServer valid = start(UnaryOperator.identity());
        e = assertThrows(JMSException.class, () -> connect(valid.tlsUrl())); // the JDK's own trust store: no test CA
        assertContains(e, "the server's TLS certificate is not trusted: it does not chain to a CA in the JDK's default trust store");

        Path wrongHostStore = wrongHost.pkcs12(dir.resolve("wrong-host.p12"));
        WharfServer otherHost = start(tls -> tls.keyStore(wrongHostStore));
        e = assertThrows(JMSException.class, () -> connect(url(otherHost, "")));
        assertContains(e, "the server's TLS certificate is not issued for host '127.0.0.1'");
        roundTrip(connect(url(otherHost, "verifyHost=false"))); // the check, not the certificate, refused it

        roundTrip(connect(url(valid, "")));
    }

    @Test
    void plainClientOnTheTlsPortIsToldToUseTlsAndTheServerServesOthers() throws Exception {
        WharfServer wharf = start(UnaryOperator.identity());
        Connection served = connect(url(wharf, ""));
        JMSException e = assertThrows(JMSException.class, () -> connect("tcp://127.0.0.1:" + wharf.tlsPort()));
        assertContains(e, "Port " + wharf.tlsPort() + " of this queue manager speaks TLS only: connect with ssl://HOST:"
                + wharf.tlsPort());
        roundTrip(served);
        roundTrip(connect(wharf.tcpUrl()));
    }

    @Test
    void tlsClientOnThePlainPortIsToldItIsNotTlsAndTheServerServesOthers() throws Exception {
        WharfServer wharf = start(UnaryOperator.identity());
        Connection served = connect(wharf.tcpUrl());
        JMSException e = assertThrows(JMSException.class,
                () -> connect("ssl://127.0.0.1:" + wharf.tcpPort() + "?trustStore=" + serverCa
                        + "&trustStorePassword=" + TestCertificates.PASSWORD));
        assertContains(e, "the server did not answer in TLS");
        assertContains(e, "this is probably its plain port; connect with tcp:// to it, or with ssl:// to the server's TLS port");
        roundTrip(served);
        roundTrip(connect(url(wharf, "")));
    }

    @Test
    void plainFalseLeavesOnlyTheTlsListener() throws Exception {
        WharfServer tlsOnly = start(tls -> tls.plain(false));
        assertEquals(-1, tlsOnly.tcpPort());
        roundTrip(connect(url(tlsOnly, "")));
    }

    @Test
    void tcpUrlWithSslTrueAndFactorySettersWorkLikeSslUrls() throws Exception {
        WharfServer wharf = start(UnaryOperator.identity());
        WharfConnectionFactory factory = new WharfConnectionFactory("tcp://127.0.0.1:" + wharf.tlsPort() + "?ssl=true");
        factory.setTrustStore(serverCa.toString());
        factory.setTrustStorePassword(TestCertificates.PASSWORD);
        roundTrip(track(factory.createConnection()));
    }

    @Test
    void jndiPropertiesAndReferencesCarryTheTlsOptions() throws Exception {
        WharfServer wharf = start(UnaryOperator.identity());
        java.util.Hashtable<String, String> env = new java.util.Hashtable<>();
        env.put(javax.naming.Context.INITIAL_CONTEXT_FACTORY, org.wharfmq.jms.jndi.WharfInitialContextFactory.class.getName());
        env.put(javax.naming.Context.PROVIDER_URL, wharf.tlsUrl());
        env.put("trustStore", serverCa.toString());
        env.put("trustStorePassword", TestCertificates.PASSWORD);
        WharfConnectionFactory bound = (WharfConnectionFactory) new javax.naming.InitialContext(env).lookup("ConnectionFactory");
        roundTrip(track(bound.createConnection()));

        Object restored = new org.wharfmq.jms.jndi.WharfObjectFactory().getObjectInstance(bound.getReference(), null, null, null);
        roundTrip(track(((WharfConnectionFactory) restored).createConnection()));
    }

    @Test
    void serverRefusesToStartWithKeysItCannotUseNamingTheSettingAndFile() throws Exception {
        Path missing = dir.resolve("missing.p12");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> start(tls -> tls.keyStore(missing)));
        assertEquals("The file of tls.keyStore, " + missing.toAbsolutePath() + ", does not exist.", e.getMessage());

        e = assertThrows(ConfigurationException.class, () -> start(tls -> tls.keyStorePassword("wrong")));
        assertEquals("Cannot open tls.keyStore " + serverStore + ": the password (tls.keyStorePassword) is wrong.",
                e.getMessage());

        Path otherKey = client.keyPem(dir.resolve("not-the-servers.key"), false);
        Path chain = server.certificatePem(dir.resolve("server-chain.crt"));
        e = assertThrows(ConfigurationException.class,
                () -> start(tls -> tls.keyStore(null).certificate(chain).privateKey(otherKey)));
        assertEquals("The private key in tls.privateKey (" + otherKey + ") and tls.certificate (" + chain + ") does not "
                + "belong to its certificate (" + server.certificate().getSubjectX500Principal().getName() + "): give the "
                + "key the certificate was issued for.", e.getMessage());
    }

    // ---- helpers ----

    /** A server with a plain and a TLS listener, its key from the PKCS#12 store, the JDK engine, adjusted by {@code tls}. */
    private WharfServer start(UnaryOperator<TlsConfig.Builder> tls) throws Exception {
        TlsConfig.Builder settings = TlsConfig.builder().port(0).engine(TlsConfig.Engine.JDK)
                .keyStore(serverStore).keyStorePassword(TestCertificates.PASSWORD);
        TlsConfig config = tls.apply(settings).build();
        TestServer testServer = TestServer.start(b -> b.tls(config),
                c -> WharfServer.builder(c).store(new InMemoryMessageStore()).start());
        open.add(testServer);
        return testServer.server();
    }

    /** The server's TLS URL, trusting the test's server CA, with more options. */
    private static String url(WharfServer wharf, String options) {
        return wharf.tlsUrl() + "?trustStore=" + serverCa + "&trustStorePassword=" + TestCertificates.PASSWORD
                + (options.isEmpty() ? "" : "&" + options);
    }

    private static String clientKey(Path store) {
        return "keyStore=" + store + "&keyStorePassword=" + TestCertificates.PASSWORD;
    }

    private Connection connect(String url) throws JMSException {
        return track(new WharfConnectionFactory(url).createConnection());
    }

    private Connection track(Connection connection) throws JMSException {
        open.add(connection);
        connection.start();
        return connection;
    }

    /** A message there and back, proving the connection carries frames both ways. */
    private static void roundTrip(Connection connection) throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue("TLS.ROUND.TRIP");
        MessageConsumer consumer = session.createConsumer(queue);
        String text = "over TLS " + System.nanoTime();
        session.createProducer(queue).send(session.createTextMessage(text));
        assertEquals(text, Receive.nextText(consumer).getText());
        session.close();
    }

    private static void assumeEngine(TlsConfig.Engine engine) {
        if (engine == TlsConfig.Engine.OPENSSL) {
            assumeTrue(OpenSsl.isAvailable(), () -> "OpenSSL (netty-tcnative) does not load here: " + OpenSsl.unavailabilityCause());
        }
    }

    private static void assertContains(Exception e, String expected) {
        assertTrue(String.valueOf(e.getMessage()).contains(expected), () -> "expected '" + expected + "' in: " + e.getMessage());
    }
}
