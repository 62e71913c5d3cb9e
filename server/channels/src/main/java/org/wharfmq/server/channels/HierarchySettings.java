package org.wharfmq.server.channels;

import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.server.config.ComponentSettings;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.SettingValues;
import org.wharfmq.server.config.Settings;
import org.wharfmq.server.config.SettingsSection;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * This queue manager's place in a publish/subscribe hierarchy (seed 001, IBM MQ's {@code ALTER QMGR PARENT}): the
 * section {@code hierarchy:} of config/wharf.yaml, whose settings {@link HierarchyConfiguration} declares
 * ({@code parent:}, the queue manager above this one, if any; {@code children:}, those below; and
 * {@code maxProxySubscriptions:}), read, checked and shown here without a line of their own. Each partner is reached
 * over the channels, by its transmission queue (docs/distributed.md, "Publish/subscribe across queue managers"). No
 * section: no hierarchy. Immutable.
 */
public final class HierarchySettings extends ComponentSettings {

    /** The section's key in the file. */
    public static final String KEY = "hierarchy";

    /**
     * Reads {@code hierarchy:}.
     *
     * @see SettingsSection
     */
    public static final SettingsSection<HierarchySettings> SECTION = file -> {
        Settings section = file.section(KEY);
        if (section == null) {
            return none();
        }
        SettingValues values = defaults().read(section);
        section.refuseUnknown();
        return new HierarchySettings(values.check(), section.source());
    };

    /**
     * Checks the names: each a queue manager's (no {@code /}), none twice, the parent not among the children.
     *
     * @param source the file they come from, for messages; null when set in code
     */
    private HierarchySettings(SettingValues values, String source) {
        super(values);
        try {
            checkNames(partners());
        } catch (ConfigurationException e) {
            throw new ConfigurationException("Invalid hierarchy: " + e.getMessage()
                    + (source == null ? "" : " (in " + source + ")"));
        }
    }

    /**
     * The hierarchy of {@code parent} and {@code children}.
     *
     * @param parent                the parent's queue manager name, or null
     * @param children              the children's names
     * @param maxProxySubscriptions the most proxy subscriptions each partner may have on this queue manager (a set
     *                              with more is taken up to it, the rest refused)
     */
    public HierarchySettings(String parent, List<String> children, int maxProxySubscriptions) {
        this(defaults().with(HierarchyConfiguration.PARENT, parent)
                .with(HierarchyConfiguration.CHILDREN, List.copyOf(children))
                .with(HierarchyConfiguration.MAX_PROXY_SUBSCRIPTIONS, maxProxySubscriptions), null);
    }

    /** With the default {@link HierarchyConfiguration#MAX_PROXY_SUBSCRIPTIONS}. */
    public HierarchySettings(String parent, List<String> children) {
        this(parent, children, HierarchyConfiguration.MAX_PROXY_SUBSCRIPTIONS.defaultValue());
    }

    private static SettingValues defaults() {
        return SettingValues.defaults(KEY, HierarchyConfiguration.class);
    }

    private static void checkNames(List<String> all) {
        Set<String> names = new HashSet<>();
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
        return new HierarchySettings(defaults(), null);
    }

    /** The parent's queue manager name, or null. */
    public String parent() {
        return get(HierarchyConfiguration.PARENT);
    }

    /** The children's names. */
    public List<String> children() {
        return get(HierarchyConfiguration.CHILDREN);
    }

    /** The most proxy subscriptions each partner may have on this queue manager. */
    public int maxProxySubscriptions() {
        return get(HierarchyConfiguration.MAX_PROXY_SUBSCRIPTIONS);
    }

    /** The parent, then the children: every queue manager this one exchanges subscriptions and publications with. */
    public List<String> partners() {
        List<String> all = new ArrayList<>();
        if (parent() != null) {
            all.add(parent());
        }
        all.addAll(children());
        return all;
    }
}
