package org.wharfmq.perf.workload;

import org.wharfmq.perf.driver.DriverResult;

import java.util.List;

/**
 * The publish/subscribe check the per-source counts cannot make: every subscriber of the step reported what it
 * received (a subscriber that died before reporting would otherwise just be missing from the counts).
 */
final class PubSubCheck {

    private PubSubCheck() {
    }

    /** A problem when the subscriber drivers' results hold other than {@code expected} subscribers. */
    static List<String> subscriberCount(int expected, List<DriverResult> subscriberDrivers) {
        int reported = subscriberDrivers.stream().mapToInt(r -> r.subscribers().size()).sum();
        if (reported == expected) {
            return List.of();
        }
        return List.of("loss: " + expected + " subscribers were started but " + reported
                + " reported what they received: the others failed (see their problems)");
    }
}
