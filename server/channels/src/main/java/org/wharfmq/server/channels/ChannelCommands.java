package org.wharfmq.server.channels;

import org.wharfmq.server.admin.AdminCommand;
import org.wharfmq.server.admin.AdminCommands;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The channels' admin commands, served by the admin plugin on the admin command queue: {@code display-chstatus}
 * (every channel's {@link ChannelStatus}), {@code start-channel} and {@code stop-channel} ({@value #CHANNEL}: a
 * sender's name).
 */
public final class ChannelCommands implements AdminCommands {

    /** Request property: the channel's name. */
    public static final String CHANNEL = "WharfChannel";

    private final ChannelsPlugin channels;

    ChannelCommands(ChannelsPlugin channels) {
        this.channels = channels;
    }

    @Override
    public Map<String, AdminCommand> commands() {
        Map<String, AdminCommand> commands = new LinkedHashMap<>();
        commands.put("display-chstatus", r -> channels.status());
        commands.put("start-channel", r -> {
            String name = r.required(CHANNEL, "a sender channel's name");
            channels.startSender(name);
            return "Channel " + name + " started";
        });
        commands.put("stop-channel", r -> {
            String name = r.required(CHANNEL, "a sender channel's name");
            channels.stopSender(name);
            return "Channel " + name + " stopped (its transmission queue keeps what it has not sent)";
        });
        return commands;
    }

    @Override
    public String toString() {
        return "the channels";
    }
}
