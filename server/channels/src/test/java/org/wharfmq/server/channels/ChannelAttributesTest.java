package org.wharfmq.server.channels;

import org.junit.jupiter.api.Test;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.Setting;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A channel's attributes (what {@code display channel} shows and channels.def keeps) come from the declarations of
 * {@link ChannelConfiguration}: every key is a sender's or a receiver's, and a channel read back from its attributes
 * is the channel it was.
 */
class ChannelAttributesTest {

    @Test
    void everyDeclaredKeyButTheNameIsASendersOrAReceivers() {
        Set<Setting<?>> owned = new HashSet<>(ChannelConfiguration.keysOf(ChannelDefinition.Type.SENDER));
        owned.addAll(ChannelConfiguration.keysOf(ChannelDefinition.Type.RECEIVER));
        for (Setting<?> key : Setting.declaredIn(ChannelConfiguration.class)) {
            assertEquals(key != ChannelConfiguration.NAME, owned.contains(key), key.key() + " is declared with"
                    + " sender(...), receiver(...) or both(...) in ChannelConfiguration, so that channels.def keeps it");
        }
    }

    @Test
    void aSendersBatchesAreNoLargerThanAReceiverHolds() {
        ChannelDefinition sender = ChannelDefinition.sender("QM1.TO.QM2", "tcp://partner:1414", "QM2", null, null);
        assertEquals(ChannelConfiguration.MAX_BATCH_SIZE, sender.withBatchSize(9_999).batchSize());
        String size = assertThrows(ConfigurationException.class, () -> sender.withBatchSize(10_000)).getMessage();
        assertTrue(size.contains("batchSize") && size.contains("must be between 1 and 9999 messages, was 10000"), size);
        String bytes = assertThrows(ConfigurationException.class, () -> sender.with(ChannelConfiguration.BATCH_BYTES,
                ChannelConfiguration.MAX_BATCH_BYTES + 1)).getMessage();
        assertTrue(bytes.contains("batchBytes") && bytes.contains("must be between 1 and 104857600 bytes, was"
                + " 104857601"), bytes);
    }

    @Test
    void aSenderReadBackFromItsAttributesIsTheSameChannel() {
        ChannelDefinition sender = ChannelDefinition.sender("QM1.TO.QM2", "ssl://partner:1414", "QM2.XMIT", "qm1",
                        "secret").withBatchSize(7).withTimes(5, 9).withMaxRetry(50).withHeartbeat(3)
                .withPipelineLength(2).withNonPersistentSpeed(ChannelDefinition.NonPersistentSpeed.NORMAL)
                .withTls(Map.of("trustStore", "/etc/wharf/trust.p12", "trustStorePassword", "changeit"))
                .with(ChannelConfiguration.BATCH_BYTES, 99L).with(ChannelConfiguration.BATCH_INTERVAL_MILLIS, 4L)
                .with(ChannelConfiguration.CONNECT_TIMEOUT_MILLIS, 8);
        Map<String, String> attributes = ChannelAttributes.of(sender);

        assertEquals("sender", attributes.get("type"));
        assertEquals("secret", attributes.get("password"));
        assertEquals("normal", attributes.get("nonPersistentSpeed"));
        assertEquals("changeit", attributes.get("tls.trustStorePassword"));
        assertFalse(attributes.containsKey("maxBatchAttempts"), "a receiver's key: " + attributes);
        assertFalse(attributes.containsKey("name"), attributes.toString());
        List<String> keys = List.copyOf(attributes.keySet());
        assertEquals(List.of("type", "connection", "transmissionQueue", "user", "password"), keys.subList(0, 5));
        assertTrue(keys.indexOf("tls.trustStore") < keys.indexOf("batchSize"), "the partner's keys first: " + keys);
        ChannelDefinition read = ChannelAttributes.read("QM1.TO.QM2", attributes, "the test");
        assertEquals(sender, read);
        assertNotEquals(sender, read.withBatchSize(8));
        assertEquals(attributes, ChannelAttributes.of(read));
    }

    @Test
    void aReceiverReadBackFromItsAttributesIsTheSameChannel() {
        ChannelDefinition receiver = ChannelDefinition.receiver("QM1.TO.QM2", "qm1", "QM1")
                .withPartnerCertificate("CN=qm1,O=Example")
                .withReceiving(ChannelDefinition.NonPersistentSpeed.NORMAL, 3);
        Map<String, String> attributes = ChannelAttributes.of(receiver);

        assertEquals(List.of("type", "partnerUser", "partnerCertificate", "partnerQueueManager", "nonPersistentSpeed",
                "maxBatchAttempts", "maxSubscriptionSetsPerMinute"), List.copyOf(attributes.keySet()), "the partner's keys first");
        assertEquals(receiver, ChannelAttributes.read("QM1.TO.QM2", attributes, "the test"));
    }

    @Test
    void shownHidesThePasswords() {
        ChannelDefinition sender = ChannelDefinition.sender("S", "ssl://partner:1414", "XQ", "qm1", "secret")
                .withTls(Map.of("keyStore", "/k.p12", "keyStorePassword", "changeit"));
        Map<String, String> shown = ChannelAttributes.shown(sender);

        assertEquals(Setting.REDACTED, shown.get("password"));
        assertEquals(Setting.REDACTED, shown.get("tls.keyStorePassword"));
        assertEquals("/k.p12", shown.get("tls.keyStore"));
        assertEquals("50", shown.get("batchSize"));
        assertEquals("qm1", shown.get("user"));
    }

    @Test
    void thePartnerKeysAreThoseDeclaredSo() {
        assertTrue(ChannelAttributes.namesPartner("connection", ChannelDefinition.Type.SENDER));
        assertTrue(ChannelAttributes.namesPartner("password", ChannelDefinition.Type.SENDER));
        assertTrue(ChannelAttributes.namesPartner("tls.trustStore", ChannelDefinition.Type.SENDER));
        assertTrue(ChannelAttributes.namesPartner("partnerCertificate", ChannelDefinition.Type.RECEIVER));
        assertFalse(ChannelAttributes.namesPartner("batchSize", ChannelDefinition.Type.SENDER));
        assertFalse(ChannelAttributes.namesPartner("maxBatchAttempts", ChannelDefinition.Type.RECEIVER));
    }
}
