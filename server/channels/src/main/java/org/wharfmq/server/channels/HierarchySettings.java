package org.wharfmq.server.channels;

import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.Settings;
import org.wharfmq.server.config.SettingsSection;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * This queue manager's place in a publish/subscribe hierarchy (seed 001, IBM MQ's {@code ALTER QMGR PARENT}): the
 * section {@code hierarchy:} of config/wharf.yaml, {@code parent:} (the queue manager above this one, if any) and
 * {@code children:} (those below), and {@code maxProxySubscriptions:} (the most a partner may have here). Each is
 * reached over the channels, by its transmission queue (docs/distributed.md, "Publish/subscribe across queue
 * managers"). No section: no hierarchy.
 *
 * @param parent                the parent's queue manager name, or null
 * @param children              the children's names
 * @param maxProxySubscriptions the most proxy subscriptions each partner may have on this queue manager (a set with
 *                              more is taken up to it, the rest refused): one set cannot fill it with subscriptions
 */
public record HierarchySettings(String parent, List<String> children, int maxProxySubscriptions) {

    /**
     * Reads {@code hierarchy:}.
     *
     * @see SettingsSection
     */
    public static final SettingsSection<HierarchySettings> SECTION = file -> {
        Settings section = file.section("hierarchy");
        if (section == null) {
            return none();
        }
        String parent = section.text("parent", null);
        List<String> children = section.texts("children", List.of());
        int maxProxySubscriptions = section.intValue("maxProxySubscriptions",
                ChannelConfiguration.DEFAULT_MAX_PROXY_SUBSCRIPTIONS);
        section.refuseUnknown();
        try {
            return new HierarchySettings(parent, children, maxProxySubscriptions);
        } catch (ConfigurationException e) {
            throw new ConfigurationException("Invalid hierarchy: " + e.getMessage() + " (in " + section.source() + ")");
        }
    };

    /** With the default {@link ChannelConfiguration#DEFAULT_MAX_PROXY_SUBSCRIPTIONS}. */
    public HierarchySettings(String parent, List<String> children) {
        this(parent, children, ChannelConfiguration.DEFAULT_MAX_PROXY_SUBSCRIPTIONS);
    }

    /**
     * Checks the names: each a queue manager's (no {@code /}), none twice, the parent not among the children; and that
     * {@code maxProxySubscriptions} is at least 1.
     */
    public HierarchySettings {
        children = List.copyOf(children);
        if (maxProxySubscriptions < 1) {
            throw new ConfigurationException("maxProxySubscriptions is " + maxProxySubscriptions + ": give the most"
                    + " proxy subscriptions a partner may have here, at least 1 (default "
                    + ChannelConfiguration.DEFAULT_MAX_PROXY_SUBSCRIPTIONS + ")");
        }
        Set<String> names = new HashSet<>();
        List<String> all = new ArrayList<>(children);
        if (parent != null) {
            all.add(parent);
        }
        for (String name : all) {
            if (name == null || name.isBlank() || name.indexOf(TransmissionHeader.QUALIFIER) >= 0) {
                throw new ConfigurationException("'" + name + "' is not a queue manager's name: give the parent's and"
                        + " the children's names as their wharf.yaml name: says");
            }
            if (!names.add(name)) {
                throw new ConfigurationException("queue manager " + name + " is named twice (a partner is the parent"
                        + " or a child, once): a hierarchy is a tree, and a loop in it would send publications round");
            }
        }
    }

    /** Not in a hierarchy. */
    public static HierarchySettings none() {
        return new HierarchySettings(null, List.of());
    }

    /** The parent, then the children: every queue manager this one exchanges subscriptions and publications with. */
    public List<String> partners() {
        List<String> all = new ArrayList<>();
        if (parent != null) {
            all.add(parent);
        }
        all.addAll(children);
        return all;
    }
}
