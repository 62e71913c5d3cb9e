package org.wharfmq.server.channels;

import org.wharfmq.client.core.transport.ClientTls;
import org.wharfmq.server.config.Setting;
import org.wharfmq.server.config.Settings;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A channel's attributes as text, named as the keys of {@code channels:} in config/wharf.yaml ({@code connection},
 * {@code batchSize}, {@code tls.trustStore}, ...): what {@code wharf admin define|alter channel} take,
 * {@code display channel} shows and {@link ChannelStore} keeps. Read back through {@link ChannelDefinition#read}, so
 * a channel defined at run time is checked as one in the configuration file is, unknown attributes included.
 */
final class ChannelAttributes {

    /** The prefix of a TLS option's attribute: {@code tls.trustStore}. */
    static final String TLS = "tls.";

    private ChannelAttributes() {
    }

    /**
     * The attributes of {@code d} (its name aside): its type's keys ({@link ChannelConfiguration#keysOf}) in
     * declaration order, those it leaves out absent, its TLS options after the keys that name its partner (as they
     * do); secrets as they are.
     */
    static Map<String, String> of(ChannelDefinition d) {
        Map<String, String> a = new LinkedHashMap<>();
        boolean tls = false;
        for (Setting<?> key : ChannelConfiguration.keysOf(d.type())) {
            if (!tls && key != ChannelConfiguration.TYPE && !ChannelConfiguration.namesPartner(key)) {
                d.tls().forEach((option, text) -> a.put(TLS + option, text));
                tls = true;
            }
            String value = d.text(key);
            if (value != null) {
                a.put(key.key(), value);
            }
        }
        return a;
    }

    /** {@link #of}, with each secret that is set as {@code ***}: what {@code display channel} shows. */
    static Map<String, String> shown(ChannelDefinition d) {
        Map<String, String> a = of(d);
        for (Setting<?> key : ChannelConfiguration.keysOf(d.type())) {
            a.computeIfPresent(key.key(), (k, text) -> String.valueOf(shown(key, d)));
        }
        ClientTls.SECRET_OPTIONS.forEach(option -> a.computeIfPresent(TLS + option, (k, text) -> Setting.REDACTED));
        return a;
    }

    private static <T> Object shown(Setting<T> key, ChannelDefinition d) {
        return key.shown(d.get(key));
    }

    /** Whether attribute {@code key} names the partner a sender reaches or a receiver accepts (a TLS option does). */
    static boolean namesPartner(String key, ChannelDefinition.Type type) {
        if (key.startsWith(TLS)) {
            return true;
        }
        for (Setting<?> setting : ChannelConfiguration.keysOf(type)) {
            if (setting.key().equals(key)) {
                return ChannelConfiguration.namesPartner(setting);
            }
        }
        return false;
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
}
