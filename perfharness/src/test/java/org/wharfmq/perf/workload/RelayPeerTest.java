package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.perf.options.OptionException;
import org.wharfmq.perf.options.PerfOptions;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code perf compare RR-1 --peer relay}: RR-1 on Wharf, then the same traffic through the bare Netty relay, and the
 * median round trips set side by side. It checks that both sides count and time their round trips, never how fast.
 */
@Tag("slow")
class RelayPeerTest {

    private static RunSettings settings(Workload w, Path out, boolean persistent) {
        return new RunSettings(w, List.of(2048), List.of(1), List.of(1), 0, 2, 1, 100, 1, 1, 10, persistent, false, null, null,
                null, null, out, List.of("-Xmx256m"), true);
    }

    @Test
    void compareSetsWharfsMedianRoundTripBesideTheRelays(@TempDir Path out) throws Exception {
        List<String> progress = new ArrayList<>();
        List<StepResult> steps = RunCommand.execute(settings(Workload.RR_1, out, false), List.of(Target.WHARF, Target.RELAY),
                new InProcessLauncher(line -> { }), progress::add);
        assertEquals(2, steps.size());
        for (StepResult s : steps) {
            assertNull(s.unavailable());
            assertTrue(s.passed(), s.target() + ": " + s.problems());
            assertTrue(s.meanRate() > 0, s.target() + " counted round trips");
            assertTrue(s.latencyMicros().count() > 0, s.target() + " timed round trips");
        }
        assertEquals("Netty relay", steps.get(1).target());
        List<String> ratios = RunCommand.relayRatios("RR-1", org.wharfmq.perf.report.MarkdownReport.byTarget(steps));
        assertEquals(1, ratios.size());
        assertTrue(ratios.get(0).startsWith("RR-1 2KB requesters=1: median round trip Wharf/Netty relay = "), ratios.get(0));
    }

    @Test
    void theRelayRefusesWhatItCannotRunAndSaysWhy(@TempDir Path out) throws Exception {
        StepResult persistent = RunCommand.execute(settings(Workload.RR_4, out, true), List.of(Target.RELAY),
                new InProcessLauncher(line -> { }), line -> { }).get(0);
        assertTrue(persistent.unavailable().contains("non-persistent request/reply traffic of RR-1, RR-2, RR-3 and RR-4 only"),
                persistent.unavailable());
        StepResult pubSub = RunCommand.execute(settings(Workload.PS_N, out.resolve("ps"), false), List.of(Target.RELAY),
                new InProcessLauncher(line -> { }), line -> { }).get(0);
        assertTrue(pubSub.unavailable().contains("has no queues, topics"), pubSub.unavailable());
        OptionException sender = assertThrows(OptionException.class,
                () -> PerfOptions.parse("-tc", "jms.r11.Sender", "-pc", "Relay", "-url", "tcp://127.0.0.1:1"));
        assertTrue(sender.getMessage().contains("-pc Relay runs jms.r11.Requestor and jms.r11.Responder only"), sender.getMessage());
    }
}
