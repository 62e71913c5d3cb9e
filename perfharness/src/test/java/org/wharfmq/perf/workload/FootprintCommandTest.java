package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code wharf perf footprint}: a server in a child JVM, measured before and after queues and idle connections. */
class FootprintCommandTest {

    @Test
    void theTotalOfAClassHistogramIsItsLiveBytes() {
        String histogram = """
                 num     #instances         #bytes  class name (module)
                -------------------------------------------------------
                   1:         12345        1048576  [B (java.base@17)
                   2:           200           6400  java.lang.String (java.base@17)
                Total         12545        1054976
                """;
        assertEquals(1054976, FootprintCommand.histogramTotal(histogram));
    }

    /**
     * 30 queues and 30 idle TLS connections ({@code --tls jdk}) on a Wharf in a child JVM: each adds to the server's
     * live heap, so the per-item figures are positive, and the result line gives them for scripts. (Without TLS, and
     * on Artemis: ReportCommandTest's memory rows; on ActiveMQ Classic: the last test below.)
     */
    @Test
    @Tag("slow")
    void queuesAndIdleConnectionsEachCostTheServerHeap() throws Exception {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        FootprintCommand.Result r = FootprintCommand.measure(Target.WHARF, 30, 30, "jdk",
                new ChildJvmLauncher(List.of("-Xmx256m"), line -> { }), new PrintStream(text, true, StandardCharsets.UTF_8));
        assertEquals(30, r.queues());
        assertEquals(30, r.connections());
        assertTrue(r.heapBytesPerQueue() > 0, "a queue costs heap: " + r);
        assertTrue(r.heapBytesPerConnection() > 0, "a connection costs heap: " + r);
        assertTrue(r.residentBefore() > 0, "the resident set is read from /proc: " + r);
        String out = text.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains(FootprintCommand.RESULT_PREFIX + " target=Wharf queues=30 heapBytesPerQueue="), out);
        assertTrue(out.contains(" tls=jdk"), out);
    }

    /**
     * {@code wharf perf footprint --peer classic}, which the results table's ActiveMQ Classic memory cells come from: the
     * stock broker in a child JVM, 30 queues and 30 idle connections through Classic's own client, each costing its heap.
     */
    @Test
    @Tag("slow")
    void theClassicPeersQueuesAndIdleConnectionsEachCostItsHeap() throws Exception {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        FootprintCommand.Result r = FootprintCommand.measure(Target.CLASSIC, 30, 30, null,
                new ChildJvmLauncher(List.of("-Xmx256m"), line -> { }), new PrintStream(text, true, StandardCharsets.UTF_8));
        assertEquals("ActiveMQ Classic", r.target());
        assertTrue(r.heapBytesPerQueue() > 0, "a queue costs the broker heap: " + r);
        assertTrue(r.heapBytesPerConnection() > 0, "a connection costs the broker heap: " + r);
        String out = text.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains(FootprintCommand.RESULT_PREFIX + " target=ActiveMQ-Classic queues=30 "), out);
    }
}
