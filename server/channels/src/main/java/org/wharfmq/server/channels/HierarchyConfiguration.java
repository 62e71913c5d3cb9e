package org.wharfmq.server.channels;

import org.wharfmq.server.config.Setting;

import java.util.List;

/**
 * The publish/subscribe hierarchy's settings, the keys of the {@code hierarchy:} block of config/wharf.yaml
 * (docs/distributed.md, "Publish/subscribe across queue managers"): each one {@link Setting}, named after its key,
 * which {@link HierarchySettings} reads, checks and shows with no code of a setting's own.
 */
public final class HierarchyConfiguration {

    /** The queue manager above this one: none by default. */
    public static final Setting<String> PARENT = Setting.text("parent", null);

    /** The queue managers below this one: none by default. */
    public static final Setting<List<String>> CHILDREN = Setting.texts("children", List.of());

    /**
     * The most proxy subscriptions each partner may have on this queue manager: default 10000. The filters of a set
     * beyond it are refused, so that one partner cannot fill the queue manager with subscriptions.
     */
    public static final Setting<Integer> MAX_PROXY_SUBSCRIPTIONS = Setting.integer("maxProxySubscriptions", 10_000)
            .check(n -> n != null && n >= 1, n -> "must be at least 1 (the most proxy subscriptions each partner may "
                    + "have here), was " + n);

    private HierarchyConfiguration() {
    }
}
