package org.wharfmq.jms;

import org.wharfmq.client.core.ConnectedLink;
import org.wharfmq.client.core.ReconnectPolicy;
import org.wharfmq.client.core.transport.BrokerAddress;

import org.junit.jupiter.api.Test;
import org.wharfmq.jms.message.DeserializationLimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BrokerUrlTest {
    @Test
    void tcpWithDefaults() {
        BrokerUrl url = BrokerUrl.parse("tcp://mq1:7500");
        assertEquals(BrokerAddress.tcp("mq1", 7500), url.addresses().get(0));
        assertEquals(1000, url.prefetch());
        assertEquals(10_000, url.heartbeatMillis());
        assertEquals(30_000, url.requestTimeoutMillis());
        assertEquals(100 * 1024 * 1024, url.maxReceiveLength(), "a queue manager's default maxMessageLength");
        assertFalse(url.syncSends());
    }

    @Test
    void tcpPortDefaultsTo7414() {
        assertEquals(7414, BrokerUrl.parse("tcp://localhost").addresses().get(0).port());
        assertEquals(7414, BrokerUrl.parse("tcp://localhost/").addresses().get(0).port());
    }

    @Test
    void ipv6Host() {
        BrokerAddress a = BrokerUrl.parse("tcp://[::1]:7000").addresses().get(0);
        assertEquals("::1", a.host());
        assertEquals(7000, a.port());
        assertEquals("tcp://[::1]:7000", a.toString());
    }

    @Test
    void options() {
        BrokerUrl url = BrokerUrl.parse("tcp://h:1?prefetch=10&heartbeat=0&connectTimeout=50&requestTimeout=70&syncSends=true&clientName=my%20app");
        assertEquals(10, url.prefetch());
        assertEquals(0, url.heartbeatMillis());
        assertEquals(50, url.connectTimeoutMillis());
        assertEquals(70, url.requestTimeoutMillis());
        assertTrue(url.syncSends());
        assertEquals("my app", url.clientName());
        assertEquals(1 << 30, BrokerUrl.parse("tcp://h:1?maxReceiveLength=1073741824").maxReceiveLength());
    }

    @Test
    void clientIdOption() {
        assertNull(BrokerUrl.parse("tcp://h:1").clientId(), "none unless configured");
        assertEquals("orders app", BrokerUrl.parse("tcp://h:1?clientID=orders%20app").clientId());
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
                () -> BrokerUrl.parse("tcp://h:1?clientID="));
        assertTrue(empty.getMessage().contains("clientID is empty"), empty.getMessage());
    }

    @Test
    void vmUrl() {
        BrokerUrl url = BrokerUrl.parse("vm://wharf?prefetch=5");
        assertTrue(url.addresses().get(0).isInVm());
        assertEquals("wharf", url.addresses().get(0).host());
        assertEquals("vm://wharf", url.addresses().get(0).toString());
        assertEquals(5, url.prefetch());
    }

    @Test
    void rejectsBadUrls() {
        assertMessage("unknown scheme", "http://h:1");
        assertMessage("unknown option 'prefetchSize'", "tcp://h:1?prefetchSize=5");
        assertMessage("prefetch=0 must be a whole number >= 1", "tcp://h:1?prefetch=0");
        assertMessage("syncSends=yes must be true or false", "tcp://h:1?syncSends=yes");
        assertMessage("port 'x'", "tcp://h:x");
        assertMessage("port '70000'", "tcp://h:70000");
        assertMessage("server name", "vm://");
        assertMessage("expected tcp://host:port", "localhost:7414");
    }

    private static void assertMessage(String expected, String url) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BrokerUrl.parse(url));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertTrue(e.getMessage().contains(url), e.getMessage());
    }

    @Test
    void agreedHeartbeatIsSmallerNonZero() {
        assertEquals(5, ConnectedLink.agreedHeartbeat(5, 10));
        assertEquals(5, ConnectedLink.agreedHeartbeat(10, 5));
        assertEquals(10, ConnectedLink.agreedHeartbeat(0, 10));
        assertEquals(10, ConnectedLink.agreedHeartbeat(10, 0));
        assertEquals(0, ConnectedLink.agreedHeartbeat(0, 0));
    }

    @Test
    void factoryValidatesAndKeepsUrl() {
        WharfConnectionFactory f = new WharfConnectionFactory();
        assertEquals("tcp://localhost:7414", f.getBrokerURL());
        f.setBrokerURL("vm://x");
        assertEquals("vm://x", f.getBrokerURL());
        assertThrows(IllegalArgumentException.class, () -> f.setBrokerURL("tcp://h?bogus=1"));
        assertEquals("vm://x", f.getBrokerURL());
    }

    @Test
    void deserializationAllowListOption() {
        BrokerUrl url = BrokerUrl.parse("tcp://h?deserializationAllowList=com.acme.*,java.util.*");
        assertTrue(url.deserialization().allows("com.acme.Order"));
        assertFalse(url.deserialization().allows("com.other.Order"));
        assertFalse(BrokerUrl.parse("tcp://h").deserialization().allows("com.acme.Order"), "default list");
        assertThrows(IllegalArgumentException.class, () -> BrokerUrl.parse("tcp://h?deserializationAllowList=com.*x"));
    }

    @Test
    void deserializationLimitOptions() {
        BrokerUrl url = BrokerUrl.parse("tcp://h?deserializationMaxDepth=40&deserializationMaxArrayLength=5"
                + "&deserializationMaxReferences=6&deserializationMaxBytes=7&deserializationAllowList=com.acme.*");
        assertEquals(40, url.deserialization().limit(DeserializationLimit.DEPTH));
        assertEquals(5, url.deserialization().limit(DeserializationLimit.ARRAY_LENGTH));
        assertEquals(6, url.deserialization().limit(DeserializationLimit.REFERENCES));
        assertEquals(7, url.deserialization().limit(DeserializationLimit.BYTES));
        assertTrue(url.deserialization().allows("com.acme.Order"), "the allow list is kept beside the limits");
        BrokerUrl defaults = BrokerUrl.parse("tcp://h");
        for (DeserializationLimit limit : DeserializationLimit.values()) {
            assertEquals(limit.defaultValue(), defaults.deserialization().limit(limit), limit.name());
        }
        assertMessage("option deserializationMaxDepth=0 must be a whole number >= 1", "tcp://h?deserializationMaxDepth=0");
        assertMessage("deserializationMaxBytes", "tcp://h?deserializationMaxByte=1");
    }

    @Test
    void sslSchemeAndSslOptionBothMeanTls() {
        BrokerUrl ssl = BrokerUrl.parse("ssl://mq1?trustStore=/etc/ca.p12&verifyHost=false&protocols=TLSv1.3");
        assertEquals(BrokerAddress.ssl("mq1", 7415), ssl.addresses().get(0), "ssl:// defaults to the TLS port");
        assertEquals("ssl://mq1:7415", ssl.addresses().get(0).toString());
        assertEquals("/etc/ca.p12", ssl.tls().trustStore());
        assertFalse(ssl.tls().verifyHost());
        assertEquals(java.util.List.of("TLSv1.3"), ssl.tls().protocols());

        BrokerUrl tcp = BrokerUrl.parse("tcp://mq1:7500?ssl=true");
        assertEquals(BrokerAddress.ssl("mq1", 7500), tcp.addresses().get(0));
        assertTrue(tcp.tls().verifyHost(), "host verification is on by default");
        assertEquals(java.util.List.of("TLSv1.3", "TLSv1.2"), tcp.tls().protocols());
        assertEquals(null, BrokerUrl.parse("tcp://mq1").tls(), "plain");
    }

    @Test
    void settingsOverrideTheUrlsOptions() {
        BrokerUrl url = BrokerUrl.parse("ssl://mq1?trustStore=/a.p12", java.util.Map.of("trustStore", "/b.p12"));
        assertEquals("/b.p12", url.tls().trustStore());
        assertEquals(BrokerAddress.ssl("mq1", 7414),
                BrokerUrl.parse("tcp://mq1", java.util.Map.of("ssl", "true")).addresses().get(0));
    }

    @Test
    void tlsOptionsWithoutTlsAndTlsInVmAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BrokerUrl.parse("tcp://mq1?trustStore=/a.p12"));
        assertTrue(e.getMessage().contains("option trustStore is a TLS option: connect with ssl://host:port"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> BrokerUrl.parse("vm://wharf?ssl=true"));
        assertTrue(e.getMessage().contains("do not use TLS"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> BrokerUrl.parse("ssl://h?verifyHost=maybe"));
        assertTrue(e.getMessage().contains("verifyHost=maybe must be true or false"), e.getMessage());
    }

    @Test
    void passwordsNeverShowInErrorsOrToString() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BrokerUrl.parse("ssl://h?trustStorePassword=s3cret&bogus=1"));
        assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
        assertTrue(e.getMessage().contains("trustStorePassword=***"), e.getMessage());
        WharfConnectionFactory factory = new WharfConnectionFactory("ssl://h?keyStorePassword=s3cret");
        factory.setTrustStorePassword("t0p");
        assertEquals("WharfConnectionFactory[ssl://h?keyStorePassword=***, trustStorePassword=***]", factory.toString());
    }

    @Test
    void aListOfAddressesSharesTheOptionsAfterTheLast() {
        BrokerUrl url = BrokerUrl.parse("tcp://mq1:7414, ssl://mq2 ,tcp://[::1]:7000?ssl=true&reconnectAttempts=-1"
                + "&reconnectInterval=200&reconnectMaxInterval=2000&trustStore=/ca.p12");
        assertEquals(java.util.List.of(BrokerAddress.ssl("mq1", 7414), BrokerAddress.ssl("mq2", 7415),
                BrokerAddress.ssl("::1", 7000)), url.addresses(), "ssl=true makes every tcp:// address TLS");
        assertEquals(new ReconnectPolicy(-1, 200, 2000), url.reconnect());
        assertEquals("/ca.p12", url.tls().trustStore());
        assertEquals(ReconnectPolicy.DEFAULT, BrokerUrl.parse("tcp://h").reconnect());
        assertEquals(new ReconnectPolicy(0, 1000, 15_000), BrokerUrl.parse("tcp://h", java.util.Map.of("reconnectAttempts",
                "0")).reconnect(), "the factory's setters and JNDI properties set them too");
    }

    @Test
    void aBadListOrReconnectOptionSaysWhatIsWrong() {
        assertMessage("list the addresses separated by commas, without failover:(...)",
                "failover:(tcp://a:1,tcp://b:1)");
        assertMessage("an empty address in the list", "tcp://a:1,,tcp://b:1");
        assertMessage("expected tcp://host:port or vm://NAME, not 'b:1'", "tcp://a:1,b:1");
        assertMessage("vm:// names the one server in this JVM", "vm://wharf,tcp://b:1");
        assertMessage("reconnectAttempts=-2 must be a whole number >= -1", "tcp://a:1?reconnectAttempts=-2");
        assertMessage("reconnectMaxInterval=10 is shorter than reconnectInterval=20",
                "tcp://a:1?reconnectInterval=20&reconnectMaxInterval=10");
    }

    @Test
    void theFactorySetsTheReconnectOptions() {
        WharfConnectionFactory factory = new WharfConnectionFactory("tcp://a:1,tcp://b:1");
        factory.setReconnectAttempts(-1);
        factory.setReconnectInterval(50);
        factory.setReconnectMaxInterval(500);
        assertEquals("WharfConnectionFactory[tcp://a:1,tcp://b:1, reconnectAttempts=-1, reconnectInterval=50,"
                + " reconnectMaxInterval=500]", factory.toString());
        assertThrows(IllegalArgumentException.class, () -> factory.setReconnectInterval(5000),
                "longer than the maximum: refused when set");
    }
}
