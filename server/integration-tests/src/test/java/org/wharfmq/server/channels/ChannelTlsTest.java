package org.wharfmq.server.channels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.config.TlsConfig;
import org.wharfmq.server.it.TestCertificates;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** A channel over TLS: the sender trusts the partner's certificate through its tls: options. */
class ChannelTlsTest {

    @TempDir
    Path dir;
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    void aSenderTrustingThePartnersCertificateMovesMessagesOverTls() throws Exception {
        TestCertificates.Issued ca = TestCertificates.ca("partner CA");
        Path keyStore = TestCertificates.issue(ca, "CN=qm2", Duration.ofDays(1), "127.0.0.1", "localhost")
                .pkcs12(dir.resolve("qm2.p12"));
        Path trust = TestCertificates.trustStore(dir.resolve("qm2-trust.p12"), ca.certificate());
        TlsConfig tls = TlsConfig.builder().port(0).engine(TlsConfig.Engine.JDK).keyStore(keyStore)
                .keyStorePassword(TestCertificates.PASSWORD).build();
        TestServer qm2 = TestServer.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS").tls(tls),
                config -> WharfServer.builder(config).plugins(new ChannelsPlugin(new ChannelSettings(List.of(
                        ChannelDefinition.receiver("TO.QM2", null, "QM1"))))).start());
        open.add(qm2);
        TestServer qm1 = TestServer.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)), config -> WharfServer
                .builder(config).plugins(new ChannelsPlugin(new ChannelSettings(List.of(ChannelDefinition.sender(
                        "TO.QM2", qm2.server().tlsUrl(), "QM2", null, null).withTls(Map.of("trustStore",
                        trust.toString(), "trustStorePassword", TestCertificates.PASSWORD)))))).start());
        open.add(qm1);

        Connection onQm1 = new WharfConnectionFactory(qm1.server().tcpUrl()).createConnection();
        open.add(onQm1);
        Session session = onQm1.createSession(false, Session.AUTO_ACKNOWLEDGE);
        session.createProducer(session.createQueue("ORDERS")).send(session.createTextMessage("over TLS"));

        Connection onQm2 = new WharfConnectionFactory(qm2.server().tcpUrl()).createConnection();
        open.add(onQm2);
        onQm2.start();
        Session s2 = onQm2.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Message m = s2.createConsumer(s2.createQueue("ORDERS")).receive(10_000);
        assertNotNull(m, "no message within 10 s");
        assertEquals("over TLS", ((TextMessage) m).getText());
    }
}
