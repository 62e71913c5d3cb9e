package org.wharfmq.server.channels;

import org.wharfmq.server.admin.AdminCommand;
import org.wharfmq.server.admin.AdminCommands;

import java.util.Map;

/**
 * The publish/subscribe hierarchy's admin command, served by the admin plugin on the admin command queue
 * (docs/operations.md): {@code display-pubsub}, its {@link HierarchyStatus} (IBM MQ's DISPLAY PUBSUB). The admin
 * plugin checks the caller's permission as for every other display.
 */
final class HierarchyCommands implements AdminCommands {

    private final PubSubHierarchy hierarchy;

    HierarchyCommands(PubSubHierarchy hierarchy) {
        this.hierarchy = hierarchy;
    }

    @Override
    public Map<String, AdminCommand> commands() {
        return Map.of("display-pubsub", r -> hierarchy.status());
    }

    @Override
    public String toString() {
        return "the publish/subscribe hierarchy";
    }
}
