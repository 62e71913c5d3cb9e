package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;
import org.wharfmq.perf.driver.DriverResult;
import org.wharfmq.perf.driver.LatencySummary;
import org.wharfmq.perf.driver.SubscriberCount;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The checks across processes: senders against receivers, publishers against every subscriber. */
class CrossCheckTest {

    private static DriverResult result(String id, Map<String, Long> sent, Map<String, Long> received, List<SubscriberCount> subscribers) {
        return new DriverResult("jms.r11.X", id, 1, 16, false, false, 0, 1000, 10, 10, 10, 10, List.of(10L), Map.of(),
                LatencySummary.NONE, "", sent, Map.of(), received, subscribers, 0, 0, 0, 0, 0, 0, List.of(), null, true);
    }

    private static DriverResult publisher(Map<String, Long> published) {
        return new DriverResult("jms.r11.Publisher", "pub", 1, 16, false, false, 0, 1000, 10, 10, 10, 10, List.of(10L), Map.of(),
                LatencySummary.NONE, "", Map.of(), published, Map.of(), List.of(), 0, 0, 0, 0, 0, 0, List.of(), null, true);
    }

    @Test
    void everyMessageReceivedOncePasses() {
        DriverResult send = result("send", Map.of("OW1/send-0", 100L, "OW2/send-1", 50L), Map.of(), List.of());
        DriverResult recv = result("recv", Map.of(), Map.of("OW1/send-0", 100L, "OW2/send-1", 50L), List.of());
        assertEquals(List.of(), WorkloadRunner.crossCheck(List.of(send), List.of(recv)));
    }

    @Test
    void aLostMessageIsReported() {
        DriverResult send = result("send", Map.of("OW1/send-0", 100L), Map.of(), List.of());
        DriverResult recv = result("recv", Map.of(), Map.of("OW1/send-0", 99L), List.of());
        List<String> problems = WorkloadRunner.crossCheck(List.of(send), List.of(recv));
        assertEquals(1, problems.size());
        assertTrue(problems.get(0).startsWith("loss: 1 of the 100"), problems.toString());
    }

    @Test
    void aMessageReceivedByTwoProcessesIsADuplicate() {
        DriverResult send = result("send", Map.of("OW1/send-0", 100L), Map.of(), List.of());
        DriverResult a = result("recvA", Map.of(), Map.of("OW1/send-0", 60L), List.of());
        DriverResult b = result("recvB", Map.of(), Map.of("OW1/send-0", 41L), List.of());
        List<String> problems = WorkloadRunner.crossCheck(List.of(send), List.of(a, b));
        assertTrue(problems.get(0).startsWith("duplicate: 1 "), problems.toString());
    }

    @Test
    void everySubscriberMustGetEveryPublication() {
        DriverResult pub = publisher(Map.of("T1/pub-0", 20L, "T2/pub-1", 5L));
        DriverResult subs = result("sub", Map.of(), Map.of(), List.of(
                new SubscriberCount("T1", Map.of("T1/pub-0", 20L)),
                new SubscriberCount("T1", Map.of("T1/pub-0", 19L)),
                new SubscriberCount("T2", Map.of())));
        List<String> problems = WorkloadRunner.crossCheck(List.of(pub), List.of(subs));
        assertEquals(2, problems.size(), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.contains("received 19 of the 20")), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.contains("received 0 of the 5")), problems.toString());
    }

    @Test
    void theFlowMustRunOncePerRequestAndLeaveNothingOnItsQueues() {
        DriverResult requesters = result("req", Map.of(), Map.of(), List.of()); // 10 requests, all answered
        assertEquals(List.of(), WorkloadRunner.flowCheck(
                "wharf-perf: flow F-PASS invocations=10 failures=0 backouts=0 input-depth=0 output-depth=0", List.of(requesters)));
        assertEquals(List.of("the flow ran 9 times for 10 requests", "flow input-depth=1 (expected 0)"), WorkloadRunner.flowCheck(
                "wharf-perf: flow F-PASS invocations=9 failures=0 backouts=0 input-depth=1 output-depth=0", List.of(requesters)));
    }

    /** A request answered late was a request the flow ran for: 10 answered in time and 2 late are 12 requests. */
    @Test
    void lateRepliesCountAsRequestsTheFlowRanFor() {
        DriverResult requesters = new DriverResult("jms.r11.Requestor", "req", 1, 16, false, false, 0, 1000, 10, 10, 10,
                10, List.of(10L), Map.of(), LatencySummary.NONE, "", Map.of(), Map.of(), Map.of(), List.of(), 0, 2, 0, 0, 0, 0,
                List.of(), null, true);
        assertEquals(List.of(), WorkloadRunner.flowCheck(
                "wharf-perf: flow F-PASS invocations=12 failures=0 backouts=0 input-depth=0 output-depth=0", List.of(requesters)));
    }

    /** A database workload's Database node must have inserted a row (or made an update) once per invocation. */
    @Test
    void theDatabaseWorkMustMatchTheInvocations() {
        DriverResult requesters = result("req", Map.of(), Map.of(), List.of()); // 10 requests, all answered
        assertEquals(List.of(), WorkloadRunner.flowCheck("wharf-perf: flow F-DB-INSERT invocations=10 failures=0 "
                + "backouts=0 input-depth=0 output-depth=0 database-work=10", List.of(requesters)));
        assertEquals(List.of("the flow's Database node did 7 inserts or updates in 10 invocations"),
                WorkloadRunner.flowCheck("wharf-perf: flow F-DB-INSERT invocations=10 failures=0 backouts=0 "
                        + "input-depth=0 output-depth=0 database-work=7", List.of(requesters)));
    }
}
