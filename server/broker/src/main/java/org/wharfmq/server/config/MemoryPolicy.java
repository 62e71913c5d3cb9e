package org.wharfmq.server.config;

import java.util.Locale;

/**
 * What happens to a send when the destination's memory budget, or the server's, is spent (docs/resilience.md).
 * Written in the configuration in lower case ({@code policy: block}).
 */
public enum MemoryPolicy {
    /**
     * The producer is slowed: the server stops returning its credit (producer flow control), so its sends wait until
     * the destination is back under its budget. Nothing is lost or refused. The default.
     */
    BLOCK,
    /** The send is refused with QUEUE_FULL, naming the destination, its budget, the bytes it holds and the setting. */
    FAIL,
    /**
     * Topics only: the subscription makes room by dropping its oldest waiting non-persistent messages (lowest
     * priority first), counted and logged once per episode.
     */
    DROP,
    /**
     * Queues (the default for them) and subscriptions whose topic entry names it: past its memory budget the queue
     * keeps new messages on disk only and reads them back in order as its consumers catch up (paging); past its disk
     * budget too, its {@code pageFullPolicy} (block or fail) applies.
     */
    PAGE;

    /**
     * The policy a configuration names.
     *
     * @param setting the setting's name, for the error
     * @throws ConfigurationException naming the setting and the policies there are
     */
    public static MemoryPolicy parse(String value, String setting) {
        MemoryPolicy named = named(value);
        if (named == null) {
            throw new ConfigurationException("Setting " + setting + " must be block, fail, drop or page, was '" + value
                    + "'.");
        }
        return named;
    }

    /** The policy {@code value} names, in any case; null for none or another text. */
    public static MemoryPolicy named(String value) {
        if (value != null) {
            for (MemoryPolicy p : values()) {
                if (p.name().equalsIgnoreCase(value.trim())) {
                    return p;
                }
            }
        }
        return null;
    }

    /** The name as the configuration writes it. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
