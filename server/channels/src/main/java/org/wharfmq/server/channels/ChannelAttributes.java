package org.wharfmq.server.channels;

import org.wharfmq.server.config.Settings;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A channel's attributes as text, named as the keys of {@code channels:} in config/wharf.yaml ({@code connection},
 * {@code batchSize}, {@code tls.trustStore}, ...): what {@code wharf admin define|alter channel} take,
 * {@code display channel} shows and {@link ChannelStore} keeps. Read back through {@link ChannelDefinition#read}, so
 * a channel defined at run time is checked as one in the configuration file is, unknown attributes included.
 */
final class ChannelAttributes {

    /** The prefix of a TLS option's attribute: {@code tls.trustStore}. */
    static final String TLS = "tls.";
    /** What changes the partner a sender reaches, or the partner a receiver accepts. */
    static final Set<String> PARTNER = Set.of("connection", "transmissionQueue", "user", "password", "partnerUser",
            "partnerCertificate", "partnerQueueManager");
    /** Attributes whose values are never shown. */
    private static final Set<String> SECRET = Set.of("password", TLS + "trustStorePassword",
            TLS + "keyStorePassword");

    private ChannelAttributes() {
    }

    /** The attributes of {@code d} (its name aside), those it leaves out absent; secrets as they are. */
    static Map<String, String> of(ChannelDefinition d) {
        Map<String, String> a = new LinkedHashMap<>();
        a.put("type", d.type() == ChannelDefinition.Type.SENDER ? "sender" : "receiver");
        if (d.type() == ChannelDefinition.Type.RECEIVER) {
            put(a, "partnerUser", d.partnerUser());
            put(a, "partnerCertificate", d.partnerCertificate());
            put(a, "partnerQueueManager", d.partnerQueueManager());
            a.put("nonPersistentSpeed", d.nonPersistentSpeed().text());
            a.put("maxBatchAttempts", Integer.toString(d.maxBatchAttempts()));
            return a;
        }
        put(a, "connection", d.connection());
        put(a, "transmissionQueue", d.transmissionQueue());
        put(a, "user", d.user());
        put(a, "password", d.password());
        d.tls().forEach((key, value) -> a.put(TLS + key, value));
        a.put("batchSize", Integer.toString(d.batchSize()));
        a.put("batchBytes", Long.toString(d.batchBytes()));
        a.put("batchIntervalMillis", Long.toString(d.batchIntervalMillis()));
        a.put("disconnectIntervalMillis", Long.toString(d.disconnectIntervalMillis()));
        a.put("retryMillis", Long.toString(d.retryMillis()));
        a.put("maxRetryMillis", Long.toString(d.maxRetryMillis()));
        a.put("heartbeatMillis", Integer.toString(d.heartbeatMillis()));
        a.put("connectTimeoutMillis", Integer.toString(d.connectTimeoutMillis()));
        a.put("pipelineLength", Integer.toString(d.pipelineLength()));
        a.put("nonPersistentSpeed", d.nonPersistentSpeed().text());
        return a;
    }

    /** {@link #of}, with each secret that is set as {@code ***}: what {@code display channel} shows. */
    static Map<String, String> shown(ChannelDefinition d) {
        Map<String, String> a = of(d);
        a.replaceAll((key, value) -> SECRET.contains(key) ? "***" : value);
        return a;
    }

    /**
     * The channel {@code name} with {@code attributes}, checked as an entry of {@code channels:} is.
     *
     * @param source what the attributes come from, for errors ("the command 'define channel'")
     * @throws org.wharfmq.server.config.ConfigurationException naming an unknown attribute or a wrong value
     */
    static ChannelDefinition read(String name, Map<String, String> attributes, String source) {
        if (attributes.containsKey("name") || attributes.containsKey("tls")) {
            throw new org.wharfmq.server.config.ConfigurationException("'name' and 'tls' are not attributes of "
                    + source + ": the channel is the one it names, and each TLS option is an attribute of its own"
                    + " (tls.trustStore)");
        }
        Settings entry = new Settings(source, "");
        Settings tls = null;
        entry.put("name", new Settings.Value(name, 0));
        for (Map.Entry<String, String> a : attributes.entrySet()) {
            if (a.getKey().startsWith(TLS)) {
                if (tls == null) {
                    tls = new Settings(source, "tls");
                    entry.put("tls", new Settings.Value(tls, 0));
                }
                tls.put(a.getKey().substring(TLS.length()), new Settings.Value(a.getValue(), 0));
            } else {
                entry.put(a.getKey(), new Settings.Value(a.getValue(), 0));
            }
        }
        return ChannelDefinition.read(entry, 0);
    }

    private static void put(Map<String, String> a, String key, String value) {
        if (value != null) {
            a.put(key, value);
        }
    }
}
