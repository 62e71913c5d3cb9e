package org.wharfmq.server.security;

import org.wharfmq.server.Configuration;

import java.net.InetAddress;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Slows password guessing without slowing the neighbours of the guesser. Two bounds, each forgotten once it has gone
 * {@link Configuration#LOGIN_FAILURE_WINDOW_MILLIS} without a failure:
 * <ul>
 *   <li><b>per user and address</b>: once a user name has failed {@link Configuration#LOGIN_FAILURES_BEFORE_DELAY}
 *       times from one address, the next logins of that user from that address are answered only after a delay that
 *       doubles with each further failure, from {@link Configuration#LOGIN_FIRST_DELAY_MILLIS} up to
 *       {@link Configuration#LOGIN_MAX_DELAY_MILLIS}. Another user on the same address (a NAT, the server's own host)
 *       is not slowed by it.</li>
 *   <li><b>per address</b>, looser, against guessing across user names (one password tried on many names, which the
 *       first bound never sees twice): once an address has failed for
 *       {@link Configuration#LOGIN_USERS_PER_ADDRESS_BEFORE_DELAY} different user names, every login from it is
 *       delayed, by the same doubling with each further name.</li>
 * </ul>
 * A login's delay is the larger of the two; it applies to a success too, so a right guess is not told apart by
 * answering sooner. The delay is the caller's to apply, as a scheduled task: nothing here waits. Thread-safe.
 *
 * <p>Memory: an entry per address and per user name that failed from it, made on failure only; an address counts at
 * most as many names as its bound needs to reach the longest delay, and past that its further names are not kept
 * (its delay is already the longest). Expired entries are dropped once there are more than {@link #PURGE_ABOVE}.
 */
public final class LoginThrottle {

    /** Past this many tracked addresses (or users at addresses), those whose failures have expired are forgotten. */
    private static final int PURGE_ABOVE = 10_000;
    /** Doublings from the first delay to the longest (20 at most, so the shift cannot overflow). */
    private static final int DOUBLINGS_TO_MAX = doublingsToMax();
    /** The different user names an address's entry keeps: enough to reach the longest delay. */
    private static final int NAMES_KEPT = Configuration.LOGIN_USERS_PER_ADDRESS_BEFORE_DELAY + DOUBLINGS_TO_MAX;

    private final LongSupplier nanoClock;
    private final ConcurrentHashMap<UserAt, Failures> byUser = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<InetAddress, AddressFailures> byAddress = new ConcurrentHashMap<>();

    /** A user name at an address. */
    private record UserAt(String user, InetAddress address) {
    }

    /** @param nanoClock the time in ns ({@code System::nanoTime}; tests pass one they move) */
    public LoginThrottle(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** Counts a failed login of {@code user} (as the client named it; "" when it named none) from {@code address}. */
    public void failed(String user, InetAddress address) {
        long now = nanoClock.getAsLong();
        if (byAddress.size() > PURGE_ABOVE) {
            byAddress.values().removeIf(f -> f.expired(now));
        }
        if (byUser.size() > PURGE_ABOVE) {
            byUser.values().removeIf(f -> f.expired(now));
        }
        boolean kept = byAddress.computeIfAbsent(address, a -> new AddressFailures()).add(user, now);
        UserAt key = new UserAt(user, address);
        Failures failures = kept ? byUser.computeIfAbsent(key, k -> new Failures()) : byUser.get(key);
        if (failures != null) {
            failures.add(now);
        }
    }

    /**
     * How long to wait before answering a login of {@code user} from {@code address}, in ms: 0 unless that user failed
     * too often from there lately, or the address failed for too many user names.
     */
    public long delayMillis(String user, InetAddress address) {
        long now = nanoClock.getAsLong();
        Failures mine = byUser.get(new UserAt(user, address));
        AddressFailures all = byAddress.get(address);
        return Math.max(mine == null ? 0 : mine.delayMillis(now), all == null ? 0 : all.delayMillis(now));
    }

    /** The delay after {@code over} failures past a bound (0 for the first one over it), capped. */
    private static long delay(int over) {
        return over < 0 ? 0 : Math.min(Configuration.LOGIN_FIRST_DELAY_MILLIS << Math.min(over, DOUBLINGS_TO_MAX),
                Configuration.LOGIN_MAX_DELAY_MILLIS);
    }

    private static int doublingsToMax() {
        int doublings = 0;
        while (doublings < 20 && Configuration.LOGIN_FIRST_DELAY_MILLIS << doublings < Configuration.LOGIN_MAX_DELAY_MILLIS) {
            doublings++;
        }
        return doublings;
    }

    private static boolean expired(long last, long now) {
        return now - last > Configuration.LOGIN_FAILURE_WINDOW_MILLIS * 1_000_000L;
    }

    /** One user's failures at one address since its last quiet window. */
    private static final class Failures {
        private int count;
        private long last;

        synchronized void add(long now) {
            if (expired(now)) {
                count = 0;
            }
            count++;
            last = now;
        }

        synchronized boolean expired(long now) {
            return count > 0 && LoginThrottle.expired(last, now);
        }

        synchronized long delayMillis(long now) {
            return expired(now) ? 0 : delay(count - Configuration.LOGIN_FAILURES_BEFORE_DELAY);
        }
    }

    /** The different user names that failed from one address since its last quiet window (at most NAMES_KEPT). */
    private static final class AddressFailures {
        private final Set<String> users = new HashSet<>();
        private long last;

        /** Counts a failure; false when the address has failed for too many names to keep this one. */
        synchronized boolean add(String user, long now) {
            if (expired(now)) {
                users.clear();
            }
            last = now;
            return users.contains(user) || (users.size() < NAMES_KEPT && users.add(user));
        }

        synchronized boolean expired(long now) {
            return !users.isEmpty() && LoginThrottle.expired(last, now);
        }

        synchronized long delayMillis(long now) {
            return expired(now) ? 0 : delay(users.size() - Configuration.LOGIN_USERS_PER_ADDRESS_BEFORE_DELAY);
        }
    }
}
