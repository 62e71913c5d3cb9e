package org.wharfmq.server.channels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.config.TlsConfig;
import org.wharfmq.server.TestCertificates;

import javax.jms.Message;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A channel over TLS: the sender trusts the partner's certificate through its tls: options. */
class ChannelTlsTest {

    @TempDir
    Path dir;
    private final ChannelServers servers = new ChannelServers();

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    @Test
    void aSenderTrustingThePartnersCertificateMovesMessagesOverTls() throws Exception {
        TestCertificates.Issued ca = TestCertificates.ca("partner CA");
        Path keyStore = TestCertificates.issue(ca, "CN=qm2", Duration.ofDays(1), "127.0.0.1", "localhost")
                .pkcs12(dir.resolve("qm2.p12"));
        Path trust = TestCertificates.trustStore(dir.resolve("qm2-trust.p12"), ca.certificate());
        TlsConfig tls = TlsConfig.builder().port(0).engine(TlsConfig.Engine.JDK).keyStore(keyStore)
                .keyStorePassword(TestCertificates.PASSWORD).build();
        TestServer qm2 = servers.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS").tls(tls),
                ChannelDefinition.receiver("TO.QM2", null, "QM1"));
        TestServer qm1 = servers.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                ChannelDefinition.sender("TO.QM2", qm2.server().tlsUrl(), "QM2", null, null).withTls(Map.of(
                        "trustStore", trust.toString(), "trustStorePassword", TestCertificates.PASSWORD)));

        Session session = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        session.createProducer(session.createQueue("ORDERS")).send(session.createTextMessage("over TLS"));

        Session s2 = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Message m = ChannelServers.next(s2.createConsumer(s2.createQueue("ORDERS")));
        assertEquals("over TLS", ((TextMessage) m).getText());
    }
}
