package org.wharfmq.server.channels;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The token bucket of a receiver's proxy subscription sets, on a clock the test gives. */
class SubscriptionSetRateTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void aBurstOfTheRateIsTakenThenOneAsEachComesBackAndTheFirstRefusalOfARunIsTheOneToLog() {
        SubscriptionSetRate rate = new SubscriptionSetRate();
        long t = 123 * SECOND;
        for (int i = 0; i < 3; i++) {
            assertEquals(SubscriptionSetRate.Verdict.TAKEN, rate.take(3, t));
        }
        assertEquals(SubscriptionSetRate.Verdict.REFUSED_FIRST, rate.take(3, t));
        assertEquals(SubscriptionSetRate.Verdict.REFUSED, rate.take(3, t + 19 * SECOND));
        // 3 a minute: one comes back every 20 s
        assertEquals(SubscriptionSetRate.Verdict.TAKEN, rate.take(3, t + 20 * SECOND));
        assertEquals(SubscriptionSetRate.Verdict.REFUSED_FIRST, rate.take(3, t + 20 * SECOND));
        // however long it waits, no more than the burst
        long later = t + 3_600 * SECOND;
        for (int i = 0; i < 3; i++) {
            assertEquals(SubscriptionSetRate.Verdict.TAKEN, rate.take(3, later));
        }
        assertEquals(SubscriptionSetRate.Verdict.REFUSED_FIRST, rate.take(3, later));
    }
}
