package org.wharfmq.server.security;

import org.wharfmq.server.Configuration;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Slows password guessing: counts failed logins per client address, and once an address has failed
 * {@link Configuration#LOGIN_FAILURES_BEFORE_DELAY} times, its next logins are answered only after a delay that
 * doubles with each further failure, from {@link Configuration#LOGIN_FIRST_DELAY_MILLIS} up to
 * {@link Configuration#LOGIN_MAX_DELAY_MILLIS}. An address that has not failed for
 * {@link Configuration#LOGIN_FAILURE_WINDOW_MILLIS} starts afresh. The delay is the caller's to apply, as a scheduled
 * task: nothing here waits. Thread-safe.
 */
public final class LoginThrottle {

    /** Past this many tracked addresses, those whose failures have expired are forgotten. */
    private static final int PURGE_ABOVE = 10_000;

    private final LongSupplier nanoClock;
    private final ConcurrentHashMap<InetAddress, Failures> failures = new ConcurrentHashMap<>();

    /** @param nanoClock the time in ns ({@code System::nanoTime}; tests pass one they move) */
    public LoginThrottle(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** Counts a failed login from {@code address}. */
    public void failed(InetAddress address) {
        long now = nanoClock.getAsLong();
        if (failures.size() > PURGE_ABOVE) {
            failures.values().removeIf(f -> f.expired(now));
        }
        failures.computeIfAbsent(address, a -> new Failures()).add(now);
    }

    /** How long to wait before answering a login from {@code address}, in ms: 0 unless it failed too often lately. */
    public long delayMillis(InetAddress address) {
        Failures f = failures.get(address);
        return f == null ? 0 : f.delayMillis(nanoClock.getAsLong());
    }

    /** One address's failures since its last quiet minute. */
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
            return count > 0 && now - last > Configuration.LOGIN_FAILURE_WINDOW_MILLIS * 1_000_000L;
        }

        synchronized long delayMillis(long now) {
            int over = count - Configuration.LOGIN_FAILURES_BEFORE_DELAY;
            if (over < 0 || expired(now)) {
                return 0;
            }
            long delay = Configuration.LOGIN_FIRST_DELAY_MILLIS << Math.min(over, 20);
            return Math.min(delay, Configuration.LOGIN_MAX_DELAY_MILLIS);
        }
    }
}
