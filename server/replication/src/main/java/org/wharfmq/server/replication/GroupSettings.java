package org.wharfmq.server.replication;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The settings every member of a replicated queue manager must share, by their names in the configuration file:
 * {@code name} (the queue manager's name: in its messages' destinations, its channels' and partners' routing, and what
 * clients see after a failover) and {@code maxMessageLength} (the largest record a member takes from the log, and the
 * limit the next active member serves clients with). A member compares its own with every running member's when it
 * starts ({@link SettingsCheck}).
 *
 * @param values setting name to value, as text
 */
public record GroupSettings(Map<String, String> values) {

    static final String NAME = "name";
    static final String MAX_MESSAGE_LENGTH = "maxMessageLength";

    public GroupSettings {
        values = new TreeMap<>(values);
        if (!values.containsKey(MAX_MESSAGE_LENGTH)) {
            throw new IllegalArgumentException("the group settings have no " + MAX_MESSAGE_LENGTH + ": " + values);
        }
    }

    /** The settings of a queue manager named {@code name} with messages of at most {@code maxMessageLength} bytes. */
    public static GroupSettings of(String name, int maxMessageLength) {
        return new GroupSettings(Map.of(NAME, name, MAX_MESSAGE_LENGTH, Integer.toString(maxMessageLength)));
    }

    int maxMessageLength() {
        return Integer.parseInt(values.get(MAX_MESSAGE_LENGTH));
    }

    /** As a member answers another that asks: {@code name=value} lines. */
    ByteString encode() {
        StringBuilder text = new StringBuilder();
        values.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        return ByteString.copyFrom(text.toString(), StandardCharsets.UTF_8);
    }

    /** Reads what {@link #encode} wrote (another member's answer). */
    static GroupSettings decode(ByteString bytes) {
        Map<String, String> values = new TreeMap<>();
        for (String line : bytes.toString(StandardCharsets.UTF_8).split("\n")) {
            int at = line.indexOf('=');
            if (at > 0) {
                values.put(line.substring(0, at), line.substring(at + 1));
            }
        }
        return new GroupSettings(values);
    }

    /** The names of the settings whose values differ from {@code other}'s (one missing there counts), in name order. */
    List<String> differences(GroupSettings other) {
        List<String> names = new ArrayList<>();
        for (Map.Entry<String, String> e : values.entrySet()) {
            if (!e.getValue().equals(other.values.get(e.getKey()))) {
                names.add(e.getKey());
            }
        }
        return names;
    }

    /** A setting's value, or "(none)" for a member that does not give it. */
    String value(String name) {
        return values.getOrDefault(name, "(none)");
    }
}
