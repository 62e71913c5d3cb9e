package org.wharfmq.server.config;

/**
 * Memory settings for the subscriptions of some topics (the {@code topics:} list of the configuration): a
 * subscription whose topic filter falls under {@code filter} (itself a filter: {@code prices/#} covers the
 * subscriptions on {@code prices/eur} and on {@code prices/+}) takes them; the first entry that covers it wins, and a
 * subscription no entry covers takes the server-wide {@code maxSubscriptionBytes} and {@code memoryPolicy}.
 *
 * @param filter   the topic filter the entry covers
 * @param maxBytes each covered subscription's memory budget in bytes, or null for {@code maxSubscriptionBytes}
 * @param policy   {@code block}, {@code fail} or {@code drop}; null for {@code memoryPolicy}
 */
public record TopicDefinition(String filter, Long maxBytes, String policy) {

    /**
     * Reads an entry of {@code topics:} (its keys, {@link TopicConfiguration}, are the components' names) and checks
     * each against its rules, naming the file and its line.
     */
    static TopicDefinition read(Settings entry) {
        SettingValues values = SettingValues.ofEntry(entry, TopicConfiguration.class);
        entry.refuseUnknown();
        TopicDefinition topic = new TopicDefinition(values.get(TopicConfiguration.FILTER),
                values.get(TopicConfiguration.MAX_BYTES), values.get(TopicConfiguration.POLICY));
        values.named(topic.owner(entry.path())).check();
        return topic;
    }

    /**
     * Checks each setting but the filter against its rules ({@link TopicConfiguration}).
     *
     * @throws ConfigurationException naming the topic filter, the setting, its value and what it must be
     */
    public void check() {
        SettingValues.defaults("", TopicConfiguration.class).named(owner("topics"))
                .with(TopicConfiguration.FILTER, filter).with(TopicConfiguration.MAX_BYTES, maxBytes)
                .with(TopicConfiguration.POLICY, policy).check();
    }

    /** This entry as errors name it: {@code topic 'prices/#'}, or {@code unnamed} when it has no filter. */
    private String owner(String unnamed) {
        return filter == null || filter.isBlank() ? unnamed : "topic '" + filter + "'";
    }
}
