package org.wharfmq.server.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A queue defined in the configuration, so that it exists from startup (and is the only kind there is when
 * {@code autoCreate} is off).
 *
 * @param name     the queue name, e.g. {@code REQUEST}
 * @param maxDepth the queue's own depth limit, or null for the server-wide {@code maxQueueDepth}
 */
public record QueueDefinition(String name, Long maxDepth) {

    /** Creates a definition; Jackson calls this for each entry under {@code queues}. */
    @JsonCreator
    public QueueDefinition(@JsonProperty("name") String name, @JsonProperty("maxDepth") Long maxDepth) {
        this.name = name;
        this.maxDepth = maxDepth;
    }
}
