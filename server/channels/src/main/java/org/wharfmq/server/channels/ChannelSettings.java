package org.wharfmq.server.channels;

import org.wharfmq.server.config.SettingsSection;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
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
        List<org.wharfmq.server.config.Settings> entries = file.sections("channels");
        for (int i = 0; i < entries.size(); i++) {
            channels.add(ChannelDefinition.read(entries.get(i), i));
        }
        return new ChannelSettings(channels);
    };

    /** Checks that each channel's name is its own. */
    public ChannelSettings {
        channels = List.copyOf(channels);
        Set<String> names = new HashSet<>();
        for (ChannelDefinition channel : channels) {
            if (!names.add(channel.name())) {
                throw new org.wharfmq.server.config.ConfigurationException("Channel '" + channel.name()
                        + "' is defined twice under channels:; give each channel a name of its own.");
            }
        }
    }

    /** No channels. */
    public static ChannelSettings none() {
        return new ChannelSettings(List.of());
    }
}
