package org.wharfmq.perf.peer;

import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.store.kahadb.KahaDBPersistenceAdapter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.perf.workload.ChildJvmLauncher;
import org.wharfmq.perf.workload.RunCommand;
import org.wharfmq.perf.workload.RunSettings;
import org.wharfmq.perf.workload.StepResult;
import org.wharfmq.perf.workload.Target;
import org.wharfmq.perf.workload.Workload;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ActiveMQ Classic peer is set up as {@code activemq create} sets up a broker, and the harness runs its
 * workloads on it end to end: the broker in its own JVM, the drivers in theirs, through Classic's own JMS client.
 */
class ClassicPeerMainTest {

    @Test
    void theBrokerIsTheStockOne(@TempDir Path data) throws Exception {
        BrokerService broker = ClassicPeerMain.broker(61616, true, data);
        KahaDBPersistenceAdapter kahaDb = (KahaDBPersistenceAdapter) broker.getPersistenceAdapter();
        assertEquals("always", kahaDb.getJournalDiskSyncStrategy().toLowerCase(), "synced like Wharf's durability fsync");
        assertEquals(data.resolve("kahadb").toFile(), kahaDb.getDirectory());
        long heap = Runtime.getRuntime().maxMemory();
        assertEquals(heap * 70 / 100, broker.getSystemUsage().getMemoryUsage().getLimit(), heap / 100.0, "70% of the heap for messages");
        java.net.URI openwire = broker.getTransportConnectors().get(0).getUri();
        assertTrue(java.net.InetAddress.getByName(openwire.getHost()).isLoopbackAddress(), "local clients only: " + openwire);
        assertEquals(61616, openwire.getPort());
        assertEquals("maximumConnections=1000&wireFormat.maxFrameSize=104857600", openwire.getQuery(), "the stock connector's options");
        assertEquals(1000, ((org.apache.activemq.broker.region.policy.ConstantPendingMessageLimitStrategy) broker
                .getDestinationPolicy().getEntryFor(new org.apache.activemq.command.ActiveMQTopic("any"))
                .getPendingMessageLimitStrategy()).getLimit());
    }

    /**
     * {@code perf compare RR-4 --peer classic}: a short RR-4 on Wharf then on the peer, each in child JVMs; every
     * request answered once on both, and the report sets them side by side with their ratio.
     */
    @Test
    @Tag("slow")
    void compareRunsRr4OnWharfAndOnThePeer(@TempDir Path out) throws Exception {
        int status = RunCommand.run(new String[] {"RR-4", "--peer", "classic", "--requesters", "2", "--warmup", "1",
                "--run-length", "2", "--out", out.toString(), "--jvm-opts", "-Xmx256m"}, true);
        assertEquals(0, status, "every step passed its checks");
        String report = Files.readString(out.resolve("report.md"));
        assertTrue(report.contains("Wharf / ActiveMQ Classic"), report);
        String results = Files.readString(out.resolve("results.json"));
        assertTrue(results.contains("\"target\" : \"ActiveMQ Classic\"") && results.contains("\"target\" : \"Wharf\""), results);
    }

    /** A short persistent RR-4 on the peer (KahaDB, synced): every request answered once, the report names the peer. */
    @Test
    @Tag("slow")
    void persistentRr4RunsOnThePeerAndEveryRoundTripCompletes(@TempDir Path out) throws Exception {
        RunSettings settings = new RunSettings(Workload.RR_4, List.of(2048), List.of(2), List.of(1), 0, 2, 1, 100, 2, 1, 10,
                true, false, null, null, null, null, out, List.of("-Xmx256m"), false);
        List<StepResult> steps = RunCommand.execute(settings, List.of(Target.CLASSIC),
                new ChildJvmLauncher(settings.jvmOptions(), line -> { }), line -> { });
        assertEquals(1, steps.size());
        StepResult s = steps.get(0);
        assertNull(s.unavailable());
        assertTrue(s.passed(), s.problems().toString());
        assertEquals("ActiveMQ Classic", s.target());
        assertTrue(s.meanRate() > 0 && s.latencyMicros().count() > 0, "round trips were counted and timed");
        RunCommand.writeReport(settings, steps, "bin/wharf perf run RR-4 --persistent --peer classic (test)");
        String report = Files.readString(out.resolve("report.md"));
        assertTrue(report.contains("ActiveMQ Classic") && report.contains("RR-4 2KB persistent"), report);
    }
}
