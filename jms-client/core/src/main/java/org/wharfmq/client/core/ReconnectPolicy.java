package org.wharfmq.client.core;

import org.wharfmq.client.core.transport.BrokerAddress;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When and how often a connection that was lost tries to connect again (broker URL options
 * {@code reconnectAttempts}, {@code reconnectInterval}, {@code reconnectMaxInterval}; {@code docs/jms-client.md},
 * "Reconnect"). An attempt goes once round the URL's address list, starting with the address that was lost. The first
 * attempt is made at once; before each later one the client waits {@code intervalMillis}, twice as long before the
 * next, up to {@code maxIntervalMillis}, each wait lengthened by up to {@value ClientConfiguration#RECONNECT_JITTER_PERCENT} %
 * at random so that the clients of a restarted server do not all come back in the same instant. A round that a replica
 * of a replicated queue manager answered NOT_ACTIVE is followed by a short one instead ({@link #delayWhileNotActive},
 * {@link ClientConfiguration#NOT_ACTIVE_RETRY_MILLIS}).
 *
 * @param attempts          attempts before giving up; {@value #FOREVER} never gives up; 0 turns reconnection off (the
 *                          ExceptionListener hears of the loss at once)
 * @param intervalMillis    the wait before the second attempt
 * @param maxIntervalMillis the longest wait between two attempts
 */
public record ReconnectPolicy(int attempts, int intervalMillis, int maxIntervalMillis) {
    /** {@code reconnectAttempts} value that never gives up. */
    public static final int FOREVER = -1;

    /** The defaults of {@link ClientConfiguration}. */
    public static final ReconnectPolicy DEFAULT = new ReconnectPolicy(ClientConfiguration.DEFAULT_RECONNECT_ATTEMPTS,
            ClientConfiguration.DEFAULT_RECONNECT_INTERVAL_MILLIS, ClientConfiguration.DEFAULT_RECONNECT_MAX_INTERVAL_MILLIS);

    /** No reconnection: a lost connection is lost for good. */
    public static final ReconnectPolicy NONE = new ReconnectPolicy(0,
            ClientConfiguration.DEFAULT_RECONNECT_INTERVAL_MILLIS, ClientConfiguration.DEFAULT_RECONNECT_MAX_INTERVAL_MILLIS);

    /** Whether a lost connection is reconnected at all. */
    public boolean enabled() {
        return attempts != 0;
    }

    /** Whether attempt {@code attempt} (counted from 1) may be made. */
    public boolean allows(int attempt) {
        return attempts == FOREVER || attempt <= attempts;
    }

    /** How long to wait before attempt {@code attempt} (from 1; the first is made at once), jitter included. */
    public long delayBefore(int attempt) {
        if (attempt <= 1) {
            return 0;
        }
        long delay = intervalMillis;
        for (int i = 2; i < attempt && delay < maxIntervalMillis; i++) {
            delay *= 2;
        }
        delay = Math.min(delay, maxIntervalMillis);
        return delay + ThreadLocalRandom.current().nextLong(delay * ClientConfiguration.RECONNECT_JITTER_PERCENT / 100 + 1);
    }

    /**
     * How long to wait before the next round after one that a replica of a replicated queue manager answered
     * NOT_ACTIVE: {@link ClientConfiguration#NOT_ACTIVE_RETRY_MILLIS}, or the interval when shorter, jitter included.
     */
    public long delayWhileNotActive() {
        long delay = Math.min(intervalMillis, ClientConfiguration.NOT_ACTIVE_RETRY_MILLIS);
        return delay + ThreadLocalRandom.current().nextLong(delay * ClientConfiguration.RECONNECT_JITTER_PERCENT / 100 + 1);
    }

    /** The settings as a message names them: {@code reconnectAttempts=25, reconnectInterval=1000 ms, ...}. */
    public String describe() {
        return "reconnectAttempts=" + attempts + ", reconnectInterval=" + intervalMillis + " ms, reconnectMaxInterval="
                + maxIntervalMillis + " ms";
    }

    /** The addresses in the order one attempt tries them: the one lost, then those after it, then those before. */
    public static List<BrokerAddress> order(List<BrokerAddress> addresses, BrokerAddress lost) {
        int start = Math.max(0, addresses.indexOf(lost));
        List<BrokerAddress> order = new ArrayList<>(addresses.size());
        for (int i = 0; i < addresses.size(); i++) {
            order.add(addresses.get((start + i) % addresses.size()));
        }
        return order;
    }
}
