package org.wharfmq.server.security;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The delay after repeated failed logins: per address, from the sixth attempt, doubling, capped, forgotten after a quiet minute. */
class LoginThrottleTest {

    private static final long MS = 1_000_000L;

    @Test
    void delaysDoubleFromTheSixthAttemptUpToFiveSecondsAndAQuietMinuteForgets() throws Exception {
        AtomicLong now = new AtomicLong();
        LoginThrottle throttle = new LoginThrottle(now::get);
        InetAddress guesser = InetAddress.getByName("192.0.2.7");
        InetAddress other = InetAddress.getByName("192.0.2.8");
        for (int i = 0; i < 5; i++) {
            assertEquals(0, throttle.delayMillis(guesser), "attempt " + (i + 1) + " is answered at once");
            throttle.failed(guesser);
            now.addAndGet(1_000 * MS);
        }
        long[] expected = {250, 500, 1000, 2000, 4000, 5000, 5000};
        for (long delay : expected) {
            assertEquals(delay, throttle.delayMillis(guesser));
            throttle.failed(guesser);
            now.addAndGet(delay * MS);
        }
        assertEquals(0, throttle.delayMillis(other), "another address is not slowed");
        now.addAndGet(60_001 * MS);
        assertEquals(0, throttle.delayMillis(guesser), "a minute without a failure: forgotten");
        throttle.failed(guesser);
        assertEquals(0, throttle.delayMillis(guesser), "and counted afresh");
    }
}
