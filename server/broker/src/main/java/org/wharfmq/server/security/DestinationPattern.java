package org.wharfmq.server.security;

import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.topic.TopicNames;

import java.util.Arrays;

/**
 * The destinations a permission rule is about, written as the security file does.
 * <ul>
 *   <li>Queue names: parts separated by {@code .}; {@code *} stands for exactly one part, {@code **} for any number
 *       of parts, none included. {@code ORDERS.*} matches {@code ORDERS.EU} but not {@code ORDERS} or
 *       {@code ORDERS.EU.LATE}; {@code ORDERS.**} matches all three; {@code **} matches every queue.</li>
 *   <li>Topic strings: levels separated by {@code /}, as subscriptions write them; {@code +} stands for exactly one
 *       level, {@code #} (last) for any number, none included: {@code prices/#} matches {@code prices} and
 *       {@code prices/fx/GBP}. A wildcard first level does not take in the queue manager's own topics,
 *       {@code $SYS/...} (as a subscription to {@code #} does not receive them): only a pattern that names
 *       {@code $SYS} does.</li>
 *   <li>HTTP paths: segments separated by {@code /}, as queue names' parts: {@code *} one segment, {@code **} any
 *       number ({@link #path}).</li>
 * </ul>
 * A wildcard stands only for a whole part or level. Immutable.
 */
public final class DestinationPattern {

    private final Permission.Scope scope;
    private final String text;
    private final String[] parts;

    private DestinationPattern(Permission.Scope scope, String text, String[] parts) {
        this.scope = scope;
        this.text = text;
        this.parts = parts;
    }

    /**
     * A pattern of queue names.
     *
     * @throws ConfigurationException when it is empty or a wildcard is part of a name
     */
    public static DestinationPattern queue(String pattern) {
        String[] parts = split(pattern, "\\.", "queue");
        for (String part : parts) {
            if (!part.equals("*") && !part.equals("**") && part.contains("*")) {
                throw new ConfigurationException("Queue pattern '" + pattern + "': a wildcard (* or **) must be a "
                        + "whole dot-separated part, as in ORDERS.* or ORDERS.**.");
            }
        }
        return new DestinationPattern(Permission.Scope.QUEUE, pattern, parts);
    }

    /**
     * A pattern of topic strings.
     *
     * @throws ConfigurationException when it is empty, a wildcard is part of a level, or {@code #} is not last
     */
    public static DestinationPattern topic(String pattern) {
        String[] parts = split(pattern, "/", "topic");
        for (int i = 0; i < parts.length; i++) {
            String level = parts[i];
            boolean wildcard = level.equals("+") || level.equals("#");
            if (!wildcard && (level.contains("+") || level.contains("#")) || level.equals("#") && i < parts.length - 1) {
                throw new ConfigurationException("Topic pattern '" + pattern + "': + and # must be whole levels, and #"
                        + " only the last, as in prices/+/GBP or prices/#.");
            }
        }
        return new DestinationPattern(Permission.Scope.TOPIC, pattern, parts);
    }

    /**
     * A pattern of HTTP paths: {@code /}-separated segments, starting with {@code /}; {@code *} stands for exactly one
     * segment, {@code **} for any number, none included: {@code /flows/**} matches {@code /flows} and
     * {@code /flows/orders/eu}.
     *
     * @throws ConfigurationException when it does not start with {@code /} or a wildcard is part of a segment
     */
    public static DestinationPattern path(String pattern) {
        if (pattern == null || !pattern.startsWith("/")) {
            throw new ConfigurationException("Path pattern '" + pattern + "' must start with '/', as in /flows/orders "
                    + "or /flows/**.");
        }
        String[] parts = split(pattern, "/", "path");
        for (String part : parts) {
            if (!part.equals("*") && !part.equals("**") && part.contains("*")) {
                throw new ConfigurationException("Path pattern '" + pattern + "': a wildcard (* or **) must be a whole "
                        + "'/'-separated segment, as in /flows/* or /flows/**.");
            }
        }
        return new DestinationPattern(Permission.Scope.PATH, pattern, parts);
    }

    private static String[] split(String pattern, String separator, String what) {
        if (pattern == null || pattern.isEmpty()) {
            throw new ConfigurationException("A " + what + " pattern must not be empty.");
        }
        return pattern.split(separator, -1);
    }

    /** Queue or topic. */
    public Permission.Scope scope() {
        return scope;
    }

    /**
     * Whether the pattern takes in {@code destination}: a queue name, a topic string, or a subscription's topic
     * filter, which it takes in only when it takes in every topic the filter matches ({@code prices/#} takes in the
     * filter {@code prices/+/GBP}, not {@code #}).
     */
    public boolean matches(String destination) {
        if (scope == Permission.Scope.QUEUE) {
            return matchQueue(destination.split("\\.", -1));
        }
        if (scope == Permission.Scope.PATH) {
            return matchQueue(destination.split("/", -1));
        }
        return coversTopic(destination.split("/", -1));
    }

    /**
     * Whether a permissions rule on this pattern decides {@code destination}: as {@link #matches}, except that a queue
     * pattern takes in the queue manager's own queues ({@code SYSTEM.*}) only when its first part is {@code SYSTEM}
     * (a rule on {@code **} does not reach them, as one on {@code #} does not reach {@code $SYS}).
     */
    public boolean grantsOn(String destination) {
        if (scope == Permission.Scope.QUEUE && SystemQueues.isSystem(destination) && !parts[0].equals("SYSTEM")) {
            return false;
        }
        return matches(destination);
    }

    /**
     * Whether the parts match {@code name}'s, {@code *} one part, {@code **} any number: one pass, going back only to
     * the last {@code **} seen (a part it did not take is tried against the next), so at most parts times name's
     * parts steps, whatever the pattern. (Trying every split for every {@code **} took exponentially many: a
     * pattern of a thousand {@code **} given to {@code display-queues} kept a worker busy for hours.)
     */
    private boolean matchQueue(String[] name) {
        int p = 0;
        int n = 0;
        int lastAny = -1; // the last ** seen, and the first name part it has not taken yet
        int takenTo = 0;
        while (n < name.length) {
            if (p < parts.length && parts[p].equals("**")) {
                lastAny = p++;
                takenTo = n;
            } else if (p < parts.length && (parts[p].equals("*") || parts[p].equals(name[n]))) {
                p++;
                n++;
            } else if (lastAny >= 0) {
                p = lastAny + 1; // the ** takes one more part
                n = ++takenTo;
            } else {
                return false;
            }
        }
        while (p < parts.length && parts[p].equals("**")) {
            p++;
        }
        return p == parts.length;
    }

    private boolean coversTopic(String[] filter) {
        if (!parts[0].equals(filter[0]) && TopicNames.hiddenFromRootWildcards(filter[0])) {
            return false; // $SYS/...: only a pattern that names the level takes it in, as only such a filter matches it
        }
        int i = 0;
        for (; i < parts.length; i++) {
            String level = parts[i];
            if (level.equals("#")) {
                return true; // any number of further levels, a filter's # or + among them
            }
            if (i == filter.length || filter[i].equals("#")) {
                return false;
            }
            if (!level.equals("+") && !level.equals(filter[i])) {
                return false; // a literal level takes in only itself (not a filter's +)
            }
        }
        return i == filter.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DestinationPattern other && other.scope == scope && Arrays.equals(other.parts, parts);
    }

    @Override
    public int hashCode() {
        return scope.hashCode() * 31 + Arrays.hashCode(parts);
    }

    /** The pattern as written. */
    @Override
    public String toString() {
        return text;
    }
}
