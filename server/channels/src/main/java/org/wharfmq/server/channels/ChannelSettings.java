package org.wharfmq.server.channels;

import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.Settings;
import org.wharfmq.server.config.SettingsSection;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The channels' settings: the list {@code channels:} of config/wharf.yaml (docs/distributed.md). Defaults:
 * {@link ChannelConfiguration}.
 */
public record ChannelSettings(List<ChannelDefinition> channels) {

    /**
     * Reads {@code channels:}.
     *
     * @see SettingsSection
     */
    public static final SettingsSection<ChannelSettings> SECTION = file -> {
        List<ChannelDefinition> channels = new ArrayList<>();
        List<Settings> entries = file.sections("channels");
        for (int i = 0; i < entries.size(); i++) {
            channels.add(withFilesOf(entries.get(i), ChannelDefinition.read(entries.get(i), i)));
        }
        return new ChannelSettings(channels);
    };

    /** The TLS files a channel's entry names: relative ones are taken from the configuration file's directory. */
    private static final List<String> TLS_FILES = List.of("trustStore", "keyStore");

    /**
     * Channel {@code d} as {@code entry} of the configuration file defines it, its TLS files named as the file's
     * directory and their names make them (as the server's own {@code tls:} files), whatever the working directory.
     */
    private static ChannelDefinition withFilesOf(Settings entry, ChannelDefinition d) {
        Settings tls = entry.section("tls");
        if (tls == null) {
            return d;
        }
        Map<String, String> options = new LinkedHashMap<>(d.tls());
        for (String key : TLS_FILES) {
            Path file = tls.file(key);
            if (file != null) {
                options.put(key, file.toString());
            }
        }
        return options.equals(d.tls()) ? d : d.withTls(options);
    }

    /** Checks that each channel's name is its own, and each transmission queue has one sender. */
    public ChannelSettings {
        channels = List.copyOf(channels);
        Set<String> names = new HashSet<>();
        for (ChannelDefinition channel : channels) {
            if (!names.add(channel.name())) {
                throw new ConfigurationException("Channel '" + channel.name()
                        + "' is defined twice under channels:; give each channel a name of its own.");
            }
        }
        checkOneSenderPerTransmissionQueue(channels);
    }

    /**
     * Checks that no two senders of {@code channels} take the same transmission queue: the order of its messages is
     * its one sender's (two would share them out, and a batch one of them failed to send would go again after what
     * the other sent since), as IBM MQ runs one sender per transmission queue.
     *
     * @throws ConfigurationException naming both channels, the queue and the fix
     */
    static void checkOneSenderPerTransmissionQueue(List<ChannelDefinition> channels) {
        Map<String, String> senders = new HashMap<>();
        for (ChannelDefinition channel : channels) {
            if (channel.type() != ChannelDefinition.Type.SENDER) {
                continue;
            }
            String other = senders.putIfAbsent(channel.transmissionQueue(), channel.name());
            if (other != null) {
                throw new ConfigurationException("Channels '" + other + "' and '" + channel.name() + "' are both"
                        + " senders of transmission queue '" + channel.transmissionQueue() + "': a transmission queue"
                        + " has one sender channel, which keeps its messages in order (two would share them out of"
                        + " order). Give each sender a transmission queue of its own (usage: transmission), and the"
                        + " remote definitions or queue-manager aliases that lead to it (docs/distributed.md,"
                        + " \"Limits\").");
            }
        }
    }

    /** No channels. */
    public static ChannelSettings none() {
        return new ChannelSettings(List.of());
    }
}
