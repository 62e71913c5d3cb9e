package org.wharfmq.server.channels;

import org.wharfmq.server.admin.AdminCommand;
import org.wharfmq.server.admin.AdminCommands;
import org.wharfmq.server.admin.AdminRequest;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The channels' admin commands, served by the admin plugin on the admin command queue (docs/operations.md,
 * "Channels"), each naming the channel in {@value #CHANNEL}: {@code display-chstatus} (every channel's
 * {@link ChannelStatus}), {@code display-channel} (definitions, all attributes; without a name every channel's),
 * {@code define-channel} and {@code alter-channel} (the attributes as arguments named as config/wharf.yaml names them,
 * {@code WharfBatchSize} for {@code batchSize}, {@code WharfTlsTrustStore} for {@code tls.trustStore}),
 * {@code delete-channel}, {@code start-channel} and {@code stop-channel}, {@code reset-channel} ({@value #SEQUENCE})
 * and {@code resolve-channel} ({@value #ACTION}, {@value #BATCH}).
 */
public final class ChannelCommands implements AdminCommands {

    /** Request property: the channel's name. */
    public static final String CHANNEL = "WharfChannel";
    /** Request property of reset-channel: the channel's new sequence number. */
    public static final String SEQUENCE = "WharfSequence";
    /** Request property of resolve-channel: {@code commit} or {@code backout}. */
    public static final String ACTION = "WharfAction";
    /** Request property of resolve-channel: the batch in doubt to complete (absent: the only one). */
    public static final String BATCH = "WharfBatch";
    private static final String PREFIX = "Wharf";

    private final ChannelAdmin admin;
    private final ChannelDefinitions definitions;
    private final ChannelStatusView status;

    ChannelCommands(ChannelAdmin admin, ChannelDefinitions definitions, ChannelStatusView status) {
        this.admin = admin;
        this.definitions = definitions;
        this.status = status;
    }

    @Override
    public Map<String, AdminCommand> commands() {
        Map<String, AdminCommand> commands = new LinkedHashMap<>();
        commands.put("display-chstatus", r -> status.status());
        commands.put("display-channel", r -> {
            String name = r.string(CHANNEL);
            if (name != null) {
                return List.of(shown(definitions.definition(name)));
            }
            List<Map<String, Object>> all = new ArrayList<>();
            for (ChannelDefinition d : definitions.definitions()) {
                all.add(shown(d));
            }
            return all;
        });
        commands.put("define-channel", r -> shown(admin.define(name(r), attributes(r))));
        commands.put("alter-channel", r -> admin.alter(name(r), attributes(r)));
        commands.put("delete-channel", r -> admin.delete(name(r)));
        commands.put("start-channel", r -> admin.startChannel(name(r)));
        commands.put("stop-channel", r -> admin.stopChannel(name(r)));
        commands.put("reset-channel", r -> {
            Long sequence = r.number(SEQUENCE);
            if (sequence == null) {
                throw new IllegalArgumentException("reset channel needs the new sequence number (--sequence N).");
            }
            return admin.reset(name(r), sequence);
        });
        commands.put("resolve-channel", r -> {
            String action = r.required(ACTION, "an action, commit or backout");
            boolean commit = switch (action.toLowerCase(Locale.ROOT)) {
                case "commit" -> true;
                case "backout" -> false;
                default -> throw new IllegalArgumentException("Channel '" + name(r) + "': the action is commit (the"
                        + " receiver has the batch) or backout (it has not), not '" + action + "'.");
            };
            return admin.resolve(name(r), commit, r.number(BATCH));
        });
        return commands;
    }

    private static String name(AdminRequest r) {
        return r.required(CHANNEL, "a channel's name");
    }

    /** What display-channel shows of {@code d}: its name, origin and state, then every attribute (no secret). */
    private Map<String, Object> shown(ChannelDefinition d) {
        Map<String, Object> shown = new LinkedHashMap<>();
        shown.put("name", d.name());
        shown.put("origin", definitions.origin(d.name()));
        shown.put("stopped", definitions.stopped(d.name()));
        shown.putAll(ChannelAttributes.shown(d));
        return shown;
    }

    /**
     * The request's attributes, by the name config/wharf.yaml gives them: {@code WharfBatchSize} is {@code batchSize},
     * {@code WharfTlsTrustStore} is {@code tls.trustStore}; an empty value is kept (alter: back to the default).
     */
    static Map<String, String> attributes(AdminRequest r) {
        Map<String, String> attributes = new LinkedHashMap<>();
        r.arguments().forEach((property, value) -> {
            if (property.equals(CHANNEL) || !property.startsWith(PREFIX) || property.length() == PREFIX.length()) {
                return;
            }
            String key = lowerFirst(property.substring(PREFIX.length()));
            if (key.startsWith("tls") && key.length() > 3 && Character.isUpperCase(key.charAt(3))) {
                key = ChannelAttributes.TLS + lowerFirst(key.substring(3));
            }
            attributes.put(key, value == null ? "" : value.toString());
        });
        return attributes;
    }

    /** The request property that carries attribute {@code key}: {@code tls.trustStore} is {@code WharfTlsTrustStore}. */
    public static String propertyOf(String key) {
        String name = key.startsWith(ChannelAttributes.TLS)
                ? "tls" + upperFirst(key.substring(ChannelAttributes.TLS.length())) : key;
        return PREFIX + upperFirst(name);
    }

    private static String lowerFirst(String s) {
        return Character.toLowerCase(s.charAt(0)) + s.substring(1);
    }

    private static String upperFirst(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    @Override
    public String toString() {
        return "the channels";
    }
}
