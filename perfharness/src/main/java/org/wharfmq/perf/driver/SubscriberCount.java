package org.wharfmq.perf.driver;

import java.util.Map;

/**
 * What one subscriber received: its topic and the distinct messages per source. Every source that published to
 * the topic must appear with the count it published.
 *
 * @param topic    the topic subscribed to
 * @param received distinct messages per source key
 */
public record SubscriberCount(String topic, Map<String, Long> received) {
}
