package org.wharfmq.perf.driver;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.perf.options.PerfOptions;
import org.wharfmq.server.TestUsers;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.security.Authenticator;

import javax.jms.Connection;
import javax.jms.JMSSecurityException;
import javax.jms.Queue;
import javax.jms.Session;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** -us and -pw (JMSPerfHarness's options): every connection of the driver logs in as that user. */
class ProviderTest {

    private static WharfServer server;

    @BeforeAll
    static void startServer(@TempDir Path data) throws Exception {
        server = WharfServer.builder(ServerConfig.builder().host("127.0.0.1").port(0).inVmName("perf-provider")
                .dataDirectory(data).build())
                .authenticator(TestUsers.withAnonymous(Authenticator.AnonymousAccess.NOWHERE, "perf")).start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Test
    void connectionsLogInAsTheUserOfUsAndPw() throws Exception {
        try (Provider provider = Provider.open(PerfOptions.parse("-url", server.tcpUrl(), "-us", "perf", "-pw", "perf-pw"));
             Connection connection = provider.connect()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("PERF.USER");
            session.createProducer(queue).send(session.createTextMessage("x"));
            assertEquals("perf", session.createConsumer(queue).receive(10_000).getStringProperty("JMSXUserID"));
        }
        try (Provider wrong = Provider.open(PerfOptions.parse("-url", server.tcpUrl(), "-us", "perf", "-pw", "nope"))) {
            assertThrows(JMSSecurityException.class, wrong::connect);
        }
        try (Provider anonymous = Provider.open(PerfOptions.parse("-url", server.tcpUrl()))) {
            assertThrows(JMSSecurityException.class, anonymous::connect, "without -us: anonymous, which this server refuses");
        }
    }

    /**
     * The drivers wait for their logins as long as the perf servers do (60 s, not the client's stock 10 s, which ended
     * an RR-5 requester JVM's logins at load 66), unless -url says otherwise; the URL's other options stay.
     */
    @Test
    void theDriversConnectTimeoutIsThePerfServersHandshakeTimeoutUnlessTheUrlGivesOne() {
        assertEquals("tcp://127.0.0.1:7414?connectTimeout=60000", Provider.withConnectTimeout("tcp://127.0.0.1:7414"));
        assertEquals("ssl://h:7415,ssl://g:7415?trustStore=/t.p12&connectTimeout=60000",
                Provider.withConnectTimeout("ssl://h:7415,ssl://g:7415?trustStore=/t.p12"));
        assertEquals("tcp://h:7414?prefetch=5&connectTimeout=2000",
                Provider.withConnectTimeout("tcp://h:7414?prefetch=5&connectTimeout=2000"));
        assertEquals("tcp://h:7414?connectTimeout=2000", Provider.withConnectTimeout("tcp://h:7414?connectTimeout=2000"));
    }
}
