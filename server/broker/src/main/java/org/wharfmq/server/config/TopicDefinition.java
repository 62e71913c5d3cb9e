package org.wharfmq.server.config;

import java.util.List;

/**
 * Memory settings for the subscriptions of some topics (the {@code topics:} list of the configuration): a
 * subscription whose topic filter falls under the entry's {@code filter} (itself a filter: {@code prices/#} covers the
 * subscriptions on {@code prices/eur} and on {@code prices/+}) takes them; the first entry that covers it wins, and a
 * subscription no entry covers takes the server-wide {@code maxSubscriptionBytes} and {@code memoryPolicy}.
 *
 * <p>It holds the value of each key of {@link TopicConfiguration} ({@link #get}), each none (null) unless given: a
 * new key of an entry of {@code topics:} is its declaration there, its paragraph in config/wharf.yaml and the code that
 * reads it ({@code topic.get(TopicConfiguration.KEY)}). Immutable: {@link #with} makes a changed copy, checked by
 * {@link #check}.
 */
public final class TopicDefinition extends SettingsEntry<TopicDefinition> {

    /** The keys of an entry ({@link TopicConfiguration}), in declaration order: found once. */
    private static final List<Setting<?>> KEYS = Setting.declaredIn(TopicConfiguration.class);

    private TopicDefinition(SettingValues values) {
        super(values);
    }

    @Override
    protected TopicDefinition of(SettingValues values) {
        return new TopicDefinition(values);
    }

    /**
     * Reads an entry of {@code topics:}, each key through its {@link TopicConfiguration} setting, and checks each
     * against its rules, naming the file and its line.
     *
     * @throws ConfigurationException for an unknown key, or a value of the wrong type or refused
     */
    static TopicDefinition read(Settings entry) {
        SettingValues values = readEntry(entry, KEYS);
        TopicDefinition topic = new TopicDefinition(values.named(owner(values.get(TopicConfiguration.FILTER),
                entry.path())));
        topic.check();
        return topic;
    }

    /** The entry for the subscriptions under {@code filter}, with every other key at its default (none). */
    public static TopicDefinition of(String filter) {
        return new TopicDefinition(SettingValues.defaults("", KEYS).named(owner(filter, "topics"))
                .with(TopicConfiguration.FILTER, filter));
    }

    /** The topic filter the entry covers. */
    public String filter() {
        return get(TopicConfiguration.FILTER);
    }

    /**
     * Checks each setting against its rules ({@link TopicConfiguration}); the filter is the queue manager's settings'
     * to check (given, and given once).
     *
     * @throws ConfigurationException naming the topic filter, the setting, its value and what it must be
     */
    public void check() {
        values().check();
    }

    /** An entry as errors name it: {@code topic 'prices/#'}, or {@code unnamed} when it has no filter. */
    private static String owner(String filter, String unnamed) {
        return filter == null || filter.isBlank() ? unnamed : "topic '" + filter + "'";
    }

    /** {@code topic 'prices/#' [filter=prices/#, maxBytes=100000, policy=drop]}. */
    @Override
    public String toString() {
        return owner(filter(), "topics") + " " + values();
    }
}
