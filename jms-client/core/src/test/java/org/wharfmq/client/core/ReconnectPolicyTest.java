package org.wharfmq.client.core;

import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.transport.BrokerAddress;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reconnection settings: attempts, the growing waits between them, and the order of the addresses tried. */
class ReconnectPolicyTest {

    @Test
    void theFirstAttemptIsAtOnceThenTheWaitsDoubleUpToTheMaximumWithAFifthAtMostOfJitter() {
        ReconnectPolicy policy = new ReconnectPolicy(10, 100, 700);
        assertEquals(0, policy.delayBefore(1));
        long[] base = {0, 0, 100, 200, 400, 700, 700};
        for (int attempt = 2; attempt < base.length; attempt++) {
            long delay = policy.delayBefore(attempt);
            assertTrue(delay >= base[attempt] && delay <= base[attempt] * 6 / 5, "attempt " + attempt + ": " + delay);
        }
        assertTrue(policy.allows(10));
        assertFalse(policy.allows(11));
        assertTrue(new ReconnectPolicy(-1, 1, 1).allows(Integer.MAX_VALUE), "-1: for ever");
        assertFalse(new ReconnectPolicy(0, 1, 1).enabled(), "0: off");
    }

    @Test
    void theDefaultsTryForAboutFiveMinutes() {
        ReconnectPolicy policy = ReconnectPolicy.DEFAULT;
        long least = 0;
        for (int attempt = 1; policy.allows(attempt); attempt++) {
            least += policy.delayBefore(attempt) * 5 / 6; // without the jitter, at most a sixth of what it gave
        }
        assertTrue(least >= 250_000 && least <= 320_000, least + " ms");
    }

    @Test
    void anAttemptTriesTheLostAddressFirstThenTheOthersInTurn() {
        BrokerAddress a = BrokerAddress.tcp("a", 1);
        BrokerAddress b = BrokerAddress.tcp("b", 1);
        BrokerAddress c = BrokerAddress.tcp("c", 1);
        assertEquals(List.of(b, c, a), ReconnectPolicy.order(List.of(a, b, c), b));
        assertEquals(List.of(a, b, c), ReconnectPolicy.order(List.of(a, b, c), a));
    }
}
