package org.wharfmq.perf.memory;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.wharfmq.perf.workload.ChildJvmLauncher;
import org.wharfmq.perf.workload.Launched;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code wharf perf memory} as a user runs it: {@code PerfMain} in a JVM of its own (what {@code bin/wharf perf} starts,
 * on the test class path instead of the jars), a short fill and drain, and what it prints.
 */
@Tag("slow")
class MemoryCommandTest {

    @Test
    void fillsAQueueReportsTheMemoryPerMessageAndDrainsItInOrder() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        int status;
        try (Launched memory = new ChildJvmLauncher(List.of("-Xmx256m"), lines::add)
                .launch("memory", List.of("memory", "--messages", "2000", "--size", "256"))) {
            status = memory.awaitExit(Duration.ofSeconds(90));
        }
        String output = String.join("\n", lines);
        assertEquals(0, status, output);
        assertContains(output, "\\[memory] wharf-perf: memory messages=2000 body=256 transport=tcp policy=page");
        assertContains(output, "fill +[\\d,]+ messages/s \\([\\d.]+ s\\); 0 of them paged");
        assertContains(output, "heap after GC +[-\\d,]+ -> +[-\\d,]+ bytes: +[-\\d,]+ per message");
        assertContains(output, "pooled direct +[-\\d,]+ -> +[-\\d,]+ bytes: +[-\\d,]+ per message");
        assertContains(output, "heap \\+ direct +[-\\d,]+ bytes per waiting message");
        // the drain takes every message back and checks each one's place (an out-of-order one fails the command)
        assertContains(output, "drain +[\\d,]+ messages/s \\([\\d.]+ s\\); all 2000 in the order sent");
        assertContains(output, "after draining +heap [\\d,]+, pooled direct [\\d,]+ bytes");
    }

    private static void assertContains(String output, String regex) {
        assertTrue(Pattern.compile(regex).matcher(output).find(), "'" + regex + "' in:\n" + output);
    }
}
