package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The runner's check of a Wharf server's memory after a request/reply step: its budget and a request and a reply. */
class MemoryWatchTest {

    private static final int SIZE = 100_000_000;
    private static final long BUDGET = 256L << 20;

    private static String line(long held) {
        return MemoryWatch.PREFIX + " held-peak=" + held + " budget=" + BUDGET + " direct-peak=300000000 direct-max=536870912";
    }

    @Test
    void theQueuesMayCrossTheBudgetByARequestAndAReply() {
        assertEquals(List.of(), MemoryWatch.check(line(BUDGET + 2L * SIZE), SIZE));
    }

    @Test
    void moreThanThatFailsTheStepNamingTheBudgetAndItsSetting() {
        List<String> problems = MemoryWatch.check(line(BUDGET + 3L * SIZE), SIZE);
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("held 568,435,456 bytes") && problems.get(0).contains("budget of 268,435,456 (setting maxMemoryBytes)"),
                problems.get(0));
        assertEquals("memory: its queues held at most 568.4 MB of their 268.4 MB budget (setting maxMemoryBytes); its buffers at most "
                + "300.0 MB of the JVM's 536.9 MB of direct memory", MemoryWatch.describe(line(BUDGET + 3L * SIZE)));
    }
}
