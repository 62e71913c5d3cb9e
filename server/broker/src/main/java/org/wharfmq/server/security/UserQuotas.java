package org.wharfmq.server.security;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.WharfException;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What each user holds against its {@link QuotaRules}: queues created by use, temporary queues and connections,
 * counted as they are taken and given back, and the REJECTs it sent to the dead-letter queue in the current minute.
 * A refusal names the user, the quota, its value and the entry of the security file that sets it; the audit log has
 * a line for the first refusal of each user and quota in a minute, with how many went without a line before it.
 *
 * <p>Thread-safe: the connections of every event loop take and give back. A count is taken by compare-and-set
 * against the quota in force, so connections of one user taking at once (pipelined creations included) never pass
 * it together; a take hands back what gives it back ({@link Runnable}, one per user and quota, made once). New rules
 * (a reloaded security file) hold for the next take; what is held already stays. Anonymous clients are one user.
 * The queue manager's own connections ({@link Identity#SERVER}) are not counted.
 */
public final class UserQuotas {

    /** What gives back nothing: a take that counted nothing. */
    public static final Runnable NOTHING = () -> {
    };

    private static final long MINUTE_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final Predicate<Identity> admin;
    private final ConcurrentHashMap<String, Account> accounts = new ConcurrentHashMap<>();
    private volatile QuotaRules rules;

    /**
     * @param rules the quotas at start
     * @param admin whether a user has the admin permission (unlimited unless the rules set its quota)
     */
    UserQuotas(QuotaRules rules, Predicate<Identity> admin) {
        this.rules = rules;
        this.admin = admin;
    }

    /** Puts new quotas in force (a reloaded security file): for the next take; what users hold stays theirs. */
    public void replace(QuotaRules next) {
        rules = next;
    }

    /** {@code who}'s quota for {@code quota} under the rules in force. */
    private QuotaRules.Limit limit(Identity who, Quota quota) {
        QuotaRules r = rules;
        if (!r.limited() || who.server()) {
            return r.limit(who, false, quota);
        }
        return r.limit(who, admin.test(who), quota);
    }

    /**
     * Counts a queue that {@code who}'s client is having created by use.
     *
     * @return what gives it back, when the queue is deleted
     * @throws WharfException TOO_MANY_QUEUES when the user holds its quota of them
     */
    public Runnable takeCreatedQueue(Identity who, String queue, Object peer) {
        return take(who, peer, Quota.CREATED_QUEUES, limit -> new WharfException(ErrorCode.TOO_MANY_QUEUES,
                "Queue '" + queue + "' cannot be created: " + atQuota(who, limit) + " Let the queues it no longer uses"
                        + " be deleted once unused (setting autoDeleteDelayMillis), or raise its quota there."));
    }

    /**
     * Counts a temporary queue one of {@code who}'s connections is creating.
     *
     * @return what gives it back, when the queue is deleted
     * @throws WharfException TOO_MANY_QUEUES when the user holds its quota of them
     */
    public Runnable takeTemporaryQueue(Identity who, String queue, Object peer) {
        return take(who, peer, Quota.TEMPORARY_QUEUES, limit -> new WharfException(ErrorCode.TOO_MANY_QUEUES,
                "Temporary queue '" + queue + "' cannot be created: " + atQuota(who, limit) + " Delete the ones it no"
                        + " longer needs (TemporaryQueue.delete()) or close connections that hold some, or raise its"
                        + " quota there."));
    }

    /**
     * Counts a connection of {@code who} that has just authenticated.
     *
     * @return what gives it back, when the connection closes
     * @throws WharfException TOO_MANY_CONNECTIONS when the user holds its quota of them
     */
    public Runnable takeConnection(Identity who, Object peer) {
        return take(who, peer, Quota.CONNECTIONS, limit -> new WharfException(ErrorCode.TOO_MANY_CONNECTIONS,
                capitalized(atQuota(who, limit)) + " Close connections it no longer needs, or raise its quota there."));
    }

    /**
     * Gives back one of {@code quota} that {@code who}'s user took: the same as running what the take returned.
     */
    public void giveBack(Identity who, Quota quota) {
        Account account = account(who);
        if (account != null) {
            account.held[quota.ordinal()].decrementAndGet();
        }
    }

    /**
     * Whether a delivery {@code who}'s client REJECTs may go to the dead-letter queue: no once the user has sent its
     * quota of them there in the current minute. The first refusal of a minute is logged (audit log, WARNING), and
     * how many more were refused in that minute once the next minute begins: one line per burst, not per message.
     */
    public boolean takeReject(Identity who, Object peer) {
        Account account = account(who);
        if (account == null) {
            return true;
        }
        return account.reject(limit(who, Quota.REJECTS_PER_MINUTE), who, peer, System.nanoTime());
    }

    /**
     * Checks that {@code who} may set {@code clientId}: one the security file keeps for other users is refused.
     *
     * @throws WharfException INVALID_CLIENT_ID naming the reservation
     */
    public void checkClientId(Identity who, String clientId, Object peer) {
        if (who.server() || clientId == null) {
            return;
        }
        QuotaRules.Reservation reservation = rules.reservation(clientId);
        if (reservation == null || reservation.owns(who)) {
            return;
        }
        AuditLog.refused(who, peer, "client id '" + clientId + "', kept for " + reservation.owners());
        throw new WharfException(ErrorCode.INVALID_CLIENT_ID, "Client ID '" + clientId + "' is reserved for "
                + owners(reservation) + " (clientIds: \"" + reservation.pattern() + "\" in the security file); "
                + who.describe() + " may not set it. Choose another client ID, or ask an administrator to reserve one"
                + " for it.");
    }

    private static String owners(QuotaRules.Reservation reservation) {
        return reservation.owners().size() == 1 ? reservation.owners().get(0).toString()
                : reservation.owners().toString();
    }

    /** "user 'app2' is at its quota of 50 queues created by use (quotas.default.createdQueues in the security file)." */
    private static String atQuota(Identity who, QuotaRules.Limit limit) {
        return (who.anonymous() ? "anonymous clients (one user together) are at their" : who.describe() + " is at its")
                + " quota of " + limit.value() + " " + limit.quota().description() + " (" + limit.setting()
                + " in the security file).";
    }

    private static String capitalized(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private Runnable take(Identity who, Object peer, Quota quota, Function<QuotaRules.Limit, WharfException> refusal) {
        Account account = account(who);
        if (account == null) {
            return NOTHING;
        }
        QuotaRules.Limit limit = limit(who, quota);
        AtomicInteger held = account.held[quota.ordinal()];
        int count;
        do {
            count = held.get();
            if (count >= limit.value()) {
                WharfException refused = refusal.apply(limit);
                int unlogged = account.refusalToLog(quota, System.nanoTime());
                if (unlogged >= 0) {
                    AuditLog.refused(who, peer, quota.description() + ": " + refused.getMessage() + (unlogged == 0 ? ""
                            : " (" + unlogged + " more refused since the last line, which are not logged one by one)"));
                }
                throw refused;
            }
        } while (!held.compareAndSet(count, count + 1));
        return account.giveBack[quota.ordinal()];
    }

    /** The account of {@code who}'s user, or null for the queue manager's own connections and when nothing is limited. */
    private Account account(Identity who) {
        if (who.server() || !rules.limited()) {
            return null;
        }
        return accounts.computeIfAbsent(who.user(), u -> new Account());
    }

    /** One user's holdings. */
    private static final class Account {

        /** By {@link Quota#ordinal()}; {@link Quota#REJECTS_PER_MINUTE}'s is unused (see the window below). */
        final AtomicInteger[] held = new AtomicInteger[Quota.values().length];
        /** What gives one back, by quota. */
        final Runnable[] giveBack = new Runnable[Quota.values().length];

        /** By quota: whether a refusal was logged, when ({@link System#nanoTime}), and those not logged since; guarded by this. */
        private final boolean[] refusalLogged = new boolean[Quota.values().length];
        private final long[] refusalLoggedAt = new long[Quota.values().length];
        private final int[] refusalsUnlogged = new int[Quota.values().length];

        /** When the current minute of REJECTs began ({@link System#nanoTime}); guarded by this. */
        private boolean started;
        private long windowStart;
        private int rejected;
        private int refused;

        Account() {
            for (Quota q : Quota.values()) {
                AtomicInteger count = new AtomicInteger();
                held[q.ordinal()] = count;
                giveBack[q.ordinal()] = count::decrementAndGet;
            }
        }

        /**
         * Whether a refusal of {@code quota} is logged now: the first of a minute is, the others are counted into the
         * next line (a flood of requests past a quota is a line a minute, not a line each).
         *
         * @return -1 when it is not logged; else how many were refused without a line since the last one
         */
        synchronized int refusalToLog(Quota quota, long now) {
            int i = quota.ordinal();
            if (refusalLogged[i] && now - refusalLoggedAt[i] < MINUTE_NANOS) {
                refusalsUnlogged[i]++;
                return -1;
            }
            refusalLogged[i] = true;
            refusalLoggedAt[i] = now;
            int unlogged = refusalsUnlogged[i];
            refusalsUnlogged[i] = 0;
            return unlogged;
        }

        synchronized boolean reject(QuotaRules.Limit limit, Identity who, Object peer, long now) {
            if (!started || now - windowStart >= MINUTE_NANOS) {
                if (refused > 0) {
                    AuditLog.refused(who, peer, "REJECT to the dead-letter queue: " + refused + " more deliveries were"
                            + " rejected in the minute after the quota was reached; they went back to their queues");
                }
                started = true;
                windowStart = now;
                rejected = 0;
                refused = 0;
            }
            if (rejected < limit.value()) {
                rejected++;
                return true;
            }
            if (refused++ == 0) {
                AuditLog.refused(who, peer, "REJECT to the dead-letter queue: " + atQuota(who, limit) + " The"
                        + " deliveries it rejects go back to their queues (redelivered, with their delivery count"
                        + " raised) until the minute is over; how many is logged then.");
            }
            return false;
        }
    }
}
