package org.wharfmq.server.security;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The delay after repeated failed logins: per user and address from the sixth attempt, doubling, capped, forgotten
 * after a quiet minute, without slowing other users at the address; per address once it fails for ten user names.
 */
class LoginThrottleTest {

    private static final long MS = 1_000_000L;

    @Test
    void delaysDoubleFromTheSixthAttemptUpToFiveSecondsAndAQuietMinuteForgets() throws Exception {
        AtomicLong now = new AtomicLong();
        LoginThrottle throttle = new LoginThrottle(now::get);
        InetAddress guesser = InetAddress.getByName("192.0.2.7");
        InetAddress other = InetAddress.getByName("192.0.2.8");
        for (int i = 0; i < 5; i++) {
            assertEquals(0, throttle.delayMillis("bob", guesser), "attempt " + (i + 1) + " is answered at once");
            throttle.failed("bob", guesser);
            now.addAndGet(1_000 * MS);
        }
        long[] expected = {250, 500, 1000, 2000, 4000, 5000, 5000};
        for (long delay : expected) {
            assertEquals(delay, throttle.delayMillis("bob", guesser));
            throttle.failed("bob", guesser);
            now.addAndGet(delay * MS);
        }
        assertEquals(0, throttle.delayMillis("bob", other), "another address is not slowed");
        now.addAndGet(60_001 * MS);
        assertEquals(0, throttle.delayMillis("bob", guesser), "a minute without a failure: forgotten");
        throttle.failed("bob", guesser);
        assertEquals(0, throttle.delayMillis("bob", guesser), "and counted afresh");
    }

    /** One client failing over and over for its user slows that user there, not app1 on the same address. */
    @Test
    void aFailingUserDoesNotSlowAnotherUserAtTheSameAddress() throws Exception {
        AtomicLong now = new AtomicLong();
        LoginThrottle throttle = new LoginThrottle(now::get);
        InetAddress shared = InetAddress.getByName("192.0.2.9");
        for (int i = 0; i < 1_000; i++) {
            throttle.failed("app2", shared);
            now.addAndGet(10 * MS);
        }
        assertEquals(5_000, throttle.delayMillis("app2", shared));
        assertEquals(0, throttle.delayMillis("app1", shared), "app1's logins from the same address are not delayed");
        throttle.failed("app1", shared); // one typo of app1's own
        assertEquals(0, throttle.delayMillis("app1", shared));
    }

    /** A password tried on many user names from one address: from the tenth name every login from there waits. */
    @Test
    void failuresForTenUserNamesFromOneAddressSlowEveryLoginFromIt() throws Exception {
        AtomicLong now = new AtomicLong();
        LoginThrottle throttle = new LoginThrottle(now::get);
        InetAddress sprayer = InetAddress.getByName("192.0.2.10");
        for (int i = 1; i <= 9; i++) {
            throttle.failed("user" + i, sprayer);
        }
        assertEquals(0, throttle.delayMillis("app1", sprayer), "nine names: not yet");
        throttle.failed("user10", sprayer);
        assertEquals(250, throttle.delayMillis("app1", sprayer), "ten names: every login from the address waits");
        assertEquals(0, throttle.delayMillis("app1", InetAddress.getByName("192.0.2.11")), "not another address's");
        for (int i = 11; i <= 1_000; i++) {
            throttle.failed("user" + i, sprayer);
        }
        assertEquals(5_000, throttle.delayMillis("app1", sprayer), "doubling with each further name, up to 5 s");
        assertEquals(5_000, throttle.delayMillis("user999", sprayer), "names past the longest delay are not kept");
        now.addAndGet(60_001 * MS);
        assertEquals(0, throttle.delayMillis("app1", sprayer), "a quiet minute forgets the address too");
    }
}
