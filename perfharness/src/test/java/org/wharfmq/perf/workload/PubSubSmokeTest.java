package org.wharfmq.perf.workload;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.perf.driver.DriverResult;
import org.wharfmq.perf.driver.LatencySummary;
import org.wharfmq.perf.driver.SubscriberCount;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A 2-second run (no warm-up) of each publish/subscribe workload (F-PUB's flow among them) against a server in this JVM: every publication reaches
 * every subscriber of its topic exactly once, and the step's rate is what the subscribers received per second of
 * the publisher's measured period. Counts only, never speed.
 */
@Tag("slow")
class PubSubSmokeTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static StepResult runOneStep(Workload w, int clients, int responders, Path out) throws Exception {
        RunSettings settings = new RunSettings(w, List.of(2048), List.of(clients), List.of(1), responders, 1, 1, 0, 2, 0, 10, false, false, null, null, null,
                null, out, List.of("-Xmx256m"), true);
        List<StepResult> steps = RunCommand.execute(settings, List.of(Target.WHARF), new InProcessLauncher(line -> { }), line -> { });
        assertEquals(1, steps.size());
        StepResult s = steps.get(0);
        assertNull(s.unavailable());
        assertTrue(s.passed(), s.problems().toString());
        return s;
    }

    private static DriverResult driver(Path out, int clients, String id) throws Exception {
        return JSON.readValue(out.resolve("steps").resolve("wharf-2048-" + clients + "-" + id + ".json").toFile(), DriverResult.class);
    }

    @Test
    void psNDeliversEveryPublicationToEverySubscriber(@TempDir Path out) throws Exception {
        StepResult s = runOneStep(Workload.PS_N, 3, 0, out);
        DriverResult pub = driver(out, 3, "pub");
        DriverResult subs = driver(out, 3, "sub1");
        long published = pub.published().values().stream().mapToLong(Long::longValue).sum();
        assertTrue(published > 0, "something was published");
        assertEquals(3, subs.subscribers().size());
        for (SubscriberCount c : subs.subscribers()) {
            assertEquals("PS/N", c.topic());
            assertEquals(pub.published(), c.received(), "each subscriber got every publication once");
        }
        assertCountedAtTheSubscriber(s, pub, subs);
        assertDeliveryLatencyMeasured(s, published * 3);
    }

    @Test
    void psTMatchesOneSubscriptionPerPublicationBesideTheDummies(@TempDir Path out) throws Exception {
        StepResult s = runOneStep(Workload.PS_T, 50, 3, out);
        assertEquals(50, s.clients(), "PS-T steps the dummy subscriptions");
        assertEquals(3, s.responders(), "and reports its subscribers");
        DriverResult pub = driver(out, 50, "pub");
        DriverResult subs = driver(out, 50, "sub1");
        assertEquals(3, pub.published().size(), "a publisher thread per topic");
        assertEquals(3, subs.subscribers().size());
        for (SubscriberCount c : subs.subscribers()) {
            Map<String, Long> own = Map.copyOf(c.received());
            assertEquals(1, own.size(), "a subscriber gets its own topic's publications only: " + own);
            String source = own.keySet().iterator().next();
            assertTrue(source.startsWith(c.topic() + "/"), source);
            assertEquals(pub.published().get(source), own.get(source));
        }
        assertCountedAtTheSubscriber(s, pub, subs);
    }

    @Test
    void psDDeliversPersistentPublicationsThroughDurableSubscriptions(@TempDir Path out) throws Exception {
        StepResult s = runOneStep(Workload.PS_D, 2, 0, out);
        DriverResult pub = driver(out, 2, "pub");
        assertTrue(pub.persistent(), "PS-D publishes persistent messages");
        DriverResult subs = driver(out, 2, "sub1");
        assertEquals(2, subs.subscribers().size());
        for (SubscriberCount c : subs.subscribers()) {
            assertEquals(pub.published(), c.received());
        }
        assertCountedAtTheSubscriber(s, pub, subs);
    }

    @Test
    void fPubsFlowPublishesEveryInputToEverySubscriber(@TempDir Path out) throws Exception {
        StepResult s = runOneStep(Workload.F_PUB, 3, 0, out);
        assertEquals(1, s.responders(), "F-PUB reports its flow instances");
        DriverResult pub = driver(out, 3, "pub");
        long sent = pub.published().values().stream().mapToLong(Long::longValue).sum();
        assertTrue(sent > 0, "something was put on the flow's input queue");
        assertEquals(sent, pub.totalIterations(), "the flow ran once per input (the step's flow check passed too)");
        DriverResult subs = driver(out, 3, "sub1");
        assertEquals(3, subs.subscribers().size());
        for (SubscriberCount c : subs.subscribers()) {
            assertEquals("F/PUB", c.topic());
            assertEquals(pub.published(), c.received(), "each subscriber got every publication of the flow once");
        }
        assertCountedAtTheSubscriber(s, pub, subs);
    }

    /**
     * The step reports the subscribers' delivery latency: one sample per stamped publication and subscriber (the
     * measured period's, so fewer than every delivery), in order, above zero (another process's clock reading is
     * later than the stamp) and below the whole run's length (a clock of another origin, or milliseconds read as
     * microseconds, would be far off).
     */
    private static void assertDeliveryLatencyMeasured(StepResult s, long deliveries) {
        LatencySummary l = s.latencyMicros();
        assertTrue(l.count() > 0 && l.count() <= deliveries, l.count() + " samples of " + deliveries + " deliveries");
        assertTrue(0 < l.p50() && l.p50() <= l.p90() && l.p90() <= l.p99() && l.p99() <= l.max(), l.toString());
        assertTrue(l.max() < 10_000_000, "under the run's 10 s: " + l);
    }

    /**
     * The step's rates are the median and mean of what the (one) subscriber JVM received in each whole second of
     * the publisher's measured period: not the publisher's counts, and not zero.
     */
    private static void assertCountedAtTheSubscriber(StepResult s, DriverResult pub, DriverResult subs) {
        List<Long> perSecond = subs.perWallSecond().entrySet().stream()
                .filter(e -> e.getKey() * 1000 >= pub.windowStartMillis() && (e.getKey() + 1) * 1000 <= pub.windowEndMillis())
                .map(Map.Entry::getValue).sorted().toList();
        assertFalse(perSecond.isEmpty(), "the publisher's measured period " + pub.windowStartMillis() + ".." + pub.windowEndMillis()
                + " holds whole seconds: " + subs.perWallSecond());
        assertEquals(perSecond.get(perSecond.size() / 2), s.medianRate(), 1e-6, "median deliveries/s at the subscribers");
        assertEquals(perSecond.stream().mapToLong(Long::longValue).average().orElseThrow(), s.meanRate(), 1e-6);
        assertTrue(s.medianRate() > 0 && s.meanRate() > 0, "deliveries were counted: " + perSecond);
    }
}
