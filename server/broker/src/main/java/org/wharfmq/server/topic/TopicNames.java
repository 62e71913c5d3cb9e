package org.wharfmq.server.topic;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.security.Identity;

/**
 * Topic strings as IBM MQ writes them: levels separated by {@code /}, e.g. {@code prices/fx/GBP}. A topic that is
 * published to names one node of the topic tree; a subscription's filter may use the wildcards {@code +} (exactly one
 * level) and {@code #} (any number of levels, including none), each only as a whole level, {@code #} only as the
 * last level.
 */
public final class TopicNames {

    /** The level separator. */
    public static final char SEPARATOR = '/';
    /** Wildcard for exactly one level. */
    public static final String ONE_LEVEL = "+";
    /** Wildcard for any number of levels, including none. */
    public static final String ANY_LEVELS = "#";
    /**
     * The first level of the queue manager's own topics ({@code $SYS/...}, as IBM MQ's and MQTT's): only the queue
     * manager publishes there, and a filter or permission pattern whose first level is a wildcard does not match a
     * topic whose first level starts with {@code $} (so a subscription to {@code #} does not receive them).
     */
    public static final String SYSTEM_LEVEL = "$SYS";
    /**
     * What the names of the queue manager's own subscriptions begin with: the proxy subscriptions of a publish/subscribe
     * hierarchy ({@code WHARF.PROXY:QM2:prices/#}, docs/distributed.md), which hold what this queue manager forwards to
     * another. Only the queue manager's own code makes, uses or ends a subscription so named; a client is refused it,
     * so that it can neither share in one (and take what another queue manager's subscribers are owed) nor make one
     * first under the name.
     */
    public static final String RESERVED_SUBSCRIPTION_PREFIX = "WHARF.PROXY:";

    private TopicNames() {
    }

    /**
     * Refuses {@code who} subscription name {@code name} when it is the queue manager's own
     * ({@link #RESERVED_SUBSCRIPTION_PREFIX}) and {@code who} is not the queue manager's own code.
     *
     * @throws WharfException NOT_AUTHORISED naming the subscription, why and the fix
     */
    public static void checkSubscriptionName(String name, Identity who) {
        if (name.startsWith(RESERVED_SUBSCRIPTION_PREFIX) && !who.server()) {
            throw new WharfException(ErrorCode.NOT_AUTHORISED, who.describeAtStart() + " may not use subscription '"
                    + name + "': a name beginning '" + RESERVED_SUBSCRIPTION_PREFIX + "' is one of the queue manager's"
                    + " own, the proxy subscriptions of its publish/subscribe hierarchy, which hold what it forwards to"
                    + " other queue managers (docs/distributed.md). Choose a subscription name that does not begin so.");
        }
    }

    /** Whether {@code topic} (or a filter) is one of the queue manager's own: its first level is {@value #SYSTEM_LEVEL}. */
    public static boolean isSystemTopic(String topic) {
        return topic.startsWith(SYSTEM_LEVEL) && (topic.length() == SYSTEM_LEVEL.length()
                || topic.charAt(SYSTEM_LEVEL.length()) == SEPARATOR);
    }

    /**
     * Whether a first level is out of reach of a wildcard in the first level of a filter or pattern: it starts with
     * {@code $} (MQTT's rule, which IBM MQ follows for {@code $SYS}).
     */
    public static boolean hiddenFromRootWildcards(String firstLevel) {
        return !firstLevel.isEmpty() && firstLevel.charAt(0) == '$';
    }

    /** Splits a topic or filter into its levels (an empty level stays an empty string). */
    static String[] levels(String topic) {
        return topic.split("/", -1);
    }

    /**
     * Checks a topic that a message is published to: not empty, no wildcard.
     *
     * @throws WharfException UNKNOWN_DESTINATION naming the topic and the rule
     */
    public static void checkTopic(String topic) {
        if (topic.isEmpty()) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "A topic name must not be empty.");
        }
        for (String level : levels(topic)) {
            if (level.contains(ONE_LEVEL) || level.contains(ANY_LEVELS)) {
                throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Topic '" + topic + "' contains a wildcard ("
                        + "'+' or '#'): messages are published to one topic; wildcards are for subscriptions only.");
            }
        }
    }

    /**
     * Checks a subscription's filter: not empty; {@code +} and {@code #} only as whole levels, {@code #} last.
     *
     * @throws WharfException UNKNOWN_DESTINATION naming the filter and the rule
     */
    public static void checkFilter(String filter) {
        if (filter.isEmpty()) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "A topic name must not be empty.");
        }
        String[] levels = levels(filter);
        for (int i = 0; i < levels.length; i++) {
            String level = levels[i];
            boolean wildcard = level.equals(ONE_LEVEL) || level.equals(ANY_LEVELS);
            if (!wildcard && (level.contains(ONE_LEVEL) || level.contains(ANY_LEVELS))) {
                throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Topic filter '" + filter + "': the wildcards"
                        + " '+' and '#' must be whole levels between '/' (level '" + level + "'), e.g. 'prices/+/GBP'.");
            }
            if (level.equals(ANY_LEVELS) && i != levels.length - 1) {
                throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Topic filter '" + filter + "': '#' must be"
                        + " the last level, e.g. 'prices/#'.");
            }
        }
    }

    /** Whether {@code filter} (checked) matches {@code topic} (without wildcards). */
    public static boolean matches(String filter, String topic) {
        String[] f = levels(filter);
        String[] t = levels(topic);
        for (int i = 0; i < f.length; i++) {
            if (f[i].equals(ANY_LEVELS)) {
                return true;
            }
            if (i >= t.length || !(f[i].equals(ONE_LEVEL) || f[i].equals(t[i]))) {
                return false;
            }
        }
        return f.length == t.length;
    }
}
