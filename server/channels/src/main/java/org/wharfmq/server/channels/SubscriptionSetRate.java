package org.wharfmq.server.channels;

/**
 * How often a receiver's partner may send proxy subscription sets (publish/subscribe hierarchy): each set makes this
 * queue manager delete and create up to {@code maxProxySubscriptions} durable subscriptions, so a partner that sends
 * sets without end, each unlike the last, would otherwise buy that churn with a small message, as often as it likes.
 * A token bucket of {@link ChannelConfiguration#MAX_SUBSCRIPTION_SETS_PER_MINUTE} sets, refilled at that many a
 * minute: a burst of that many is taken at once (a Wharf partner sends a set per change of its subscriptions, so
 * changes that come together cost a few), then one as each comes back. One per receiver channel, kept across its
 * partner's connections (a partner cannot refill it by connecting again); thread-safe (its monitor: the partner's
 * event loop and the channel's batch commits take from it, one connection at a time).
 */
final class SubscriptionSetRate {

    private static final long MINUTE_NANOS = 60_000_000_000L;

    /** The sets that may be taken now; guarded by this. Negative until the first set: the bucket starts full. */
    private double tokens = -1;
    /** When {@link #tokens} was last refilled ({@link System#nanoTime}); guarded by this. */
    private long refilledNanos;
    /** Whether the last set was refused: the first refusal of a run is logged, the rest are not; guarded by this. */
    private boolean refusing;

    /**
     * Takes one set, at most {@code perMinute} a minute in bursts of as many, at {@code nowNanos}.
     *
     * @return {@link Verdict#TAKEN}; or, past the rate, {@link Verdict#REFUSED_FIRST} for the first refusal since a set
     * was last taken (the one to log) and {@link Verdict#REFUSED} for the others
     */
    synchronized Verdict take(int perMinute, long nowNanos) {
        if (tokens < 0) {
            tokens = perMinute;
        } else {
            tokens = Math.min(perMinute, tokens + (double) (nowNanos - refilledNanos) * perMinute / MINUTE_NANOS);
        }
        refilledNanos = nowNanos;
        if (tokens >= 1) {
            tokens -= 1;
            refusing = false;
            return Verdict.TAKEN;
        }
        boolean first = !refusing;
        refusing = true;
        return first ? Verdict.REFUSED_FIRST : Verdict.REFUSED;
    }

    /** What {@link #take} says of a set. */
    enum Verdict { TAKEN, REFUSED_FIRST, REFUSED }
}
