package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 100 MB request/reply through the harness, persistent and not: RR-2 with {@code --sizes 100000000} (100 MB decimal,
 * the largest message the server takes by default with its headers: a 100 MiB body is past maxMessageLength), one
 * requester over TCP, one responder, two seconds, so one or two round trips. Every reply must answer its request once
 * and carry all of its 100 MB, and the server's queues must hold no more than its memory budget and a request and a
 * reply. In this JVM (a quick check): it needs about 600 MB of heap at its peak (the body, the request, the server's
 * copy, the reply, each 100 MB), and the budget is this JVM's automatic one (half its direct memory limit). The same run
 * in JVMs of a small server's limits, {@code --jvm-opts "-Xmx1g -XX:MaxDirectMemorySize=512m"} (a 256 MiB budget), is
 * in docs/performance-log.md.
 */
@Tag("slow")
class LargeRequestReplyTest {

    private static final int HUNDRED_MB = 100_000_000;

    @ParameterizedTest(name = "persistent={0}")
    @ValueSource(booleans = {false, true})
    void hundredMbRequestsAreAnsweredWholeWithinTheServersMemoryBudget(boolean persistent, @TempDir Path out) throws Exception {
        RunSettings settings = new RunSettings(Workload.RR_2, List.of(HUNDRED_MB), List.of(1), List.of(1), 1, 1, 1, 0, 2, 0, 0,
                persistent, false, null, null, null, null, out, List.of("-Xmx1g"), true);
        List<String> progress = new CopyOnWriteArrayList<>();
        List<StepResult> steps = RunCommand.execute(settings, List.of(Target.WHARF), new InProcessLauncher(line -> { }),
                progress::add);
        assertEquals(1, steps.size());
        StepResult s = steps.get(0);
        assertNull(s.unavailable());
        assertTrue(s.passed(), () -> s.problems() + " " + progress);
        assertEquals("100e6B", Sizes.label(s.messageSize()));
        assertTrue(s.latencyMicros().count() >= 1, () -> "at least one round trip: " + progress);
        String memory = progress.stream().filter(l -> l.contains("server memory:")).findFirst().orElseThrow(() -> new AssertionError(
                "the runner reports the server's memory: " + progress));
        assertTrue(memory.contains("budget (setting maxMemoryBytes)"), memory);
    }
}
