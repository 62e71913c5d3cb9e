package org.wharfmq.server.security;

import java.util.Locale;

/**
 * What a user may be allowed to do. Each permission is about queues, topics or the queue manager itself (see
 * {@link #scope()}); a rule of the security file grants it on destinations that match a pattern.
 */
public enum Permission {

    /** Connect to the queue manager at all (checked once the handshake has authenticated the client). */
    CONNECT(Scope.SERVER),

    /** Send messages to a queue (a producer for it, or an anonymous producer's send to it). */
    SEND(Scope.QUEUE),
    /** Consume messages from a queue. */
    RECEIVE(Scope.QUEUE),
    /** Look at a queue's messages without consuming them (a QueueBrowser). */
    BROWSE(Scope.QUEUE),
    /** Create a queue by using a name that does not exist yet (setting autoCreate). */
    CREATE(Scope.QUEUE),
    /** Publish to a topic. */
    PUBLISH(Scope.TOPIC),
    /** Subscribe to a topic or a filter of topics (non-durable or shared). */
    SUBSCRIBE(Scope.TOPIC),
    /** Create or resume a durable subscription to a topic or filter (needs {@link #SUBSCRIBE} too). */
    DURABLE(Scope.TOPIC),
    /** Every admin command, and reading or browsing the {@code SYSTEM.*} queues; includes {@link #MONITOR}. */
    ADMIN(Scope.SERVER),
    /**
     * See the queue manager's state without changing it or reading messages: the metrics ({@code /metrics} on the
     * HTTP listener) and the web console's views. {@link #ADMIN} includes it.
     */
    MONITOR(Scope.SERVER),
    /**
     * Act as a channel to another queue manager: receive from and browse its transmission queues (a queue with usage
     * transmission, docs/distributed.md), whatever the queue rules say. {@link #ADMIN} does not include it.
     */
    CHANNEL(Scope.SERVER),
    /**
     * Call an HTTP path a message flow serves (an HTTPInput node's path, such as {@code /flows/orders}) on the HTTP
     * listener. {@link #ADMIN} does not include it.
     */
    CALL(Scope.PATH);

    /** What a permission's rules match. */
    public enum Scope {
        /** Queue names; patterns with {@code *} (one dot-separated part) and {@code **} (any number of parts). */
        QUEUE,
        /** Topic strings; patterns with {@code +} (one level) and {@code #} (any number of levels). */
        TOPIC,
        /** HTTP paths; patterns with {@code *} (one {@code /}-separated segment) and {@code **} (any number). */
        PATH,
        /** The queue manager: no destination. */
        SERVER
    }

    private final Scope scope;

    Permission(Scope scope) {
        this.scope = scope;
    }

    /** What the permission's rules match. */
    public Scope scope() {
        return scope;
    }

    /** The permission as the security file writes it: {@code send}, {@code receive}, ... */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }
}
