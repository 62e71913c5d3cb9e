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
     * Reads an entry of {@code topics:} (its keys, {@link TopicConfiguration}, are the components' names); its values
     * are checked by the server's settings.
     */
    static TopicDefinition read(Settings entry) {
        TopicDefinition topic = new TopicDefinition(TopicConfiguration.FILTER.read(entry),
                TopicConfiguration.MAX_BYTES.read(entry), TopicConfiguration.POLICY.read(entry));
        entry.refuseUnknown();
        return topic;
    }
}
