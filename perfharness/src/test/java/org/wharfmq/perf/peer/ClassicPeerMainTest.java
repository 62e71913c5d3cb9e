package org.wharfmq.perf.peer;

import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.store.kahadb.KahaDBPersistenceAdapter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.perf.workload.CompareSteps;
import org.wharfmq.perf.workload.RunCommand;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        assertEquals("maximumConnections=100000&wireFormat.maxFrameSize=104857600", openwire.getQuery(),
                "the stock connector's options, its connections raised as Wharf's perf server raises its own");
        assertEquals(1000, ((org.apache.activemq.broker.region.policy.ConstantPendingMessageLimitStrategy) broker
                .getDestinationPolicy().getEntryFor(new org.apache.activemq.command.ActiveMQTopic("any"))
                .getPendingMessageLimitStrategy()).getLimit());
    }

    /**
     * {@code perf compare RR-4 --peer classic --persistent}: a short persistent RR-4 on Wharf then on the peer (KahaDB,
     * synced), each in child JVMs; every request answered once on both, each round trip committed by its responder,
     * and the report sets them side by side with their ratio. (Non-persistent RR-4 in child JVMs is WorkloadSmokeTest's,
     * beside the Artemis peer; the peer's broker is the same, its journal synced or not.)
     */
    // child JVMs one after the other (a server, its drivers, then the peer and its drivers): at load 30-40 such runs
    // took over two minutes, past the default 120 s
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    @Test
    @Tag("slow")
    void comparePersistentRr4OnWharfAndOnThePeer(@TempDir Path out) throws Exception {
        int status = RunCommand.run(new String[] {"RR-4", "--peer", "classic", "--persistent", "--requesters", "2",
                "--warmup", "1", "--run-length", "1", "--out", out.toString(), "--jvm-opts", "-Xmx256m"}, true);
        assertEquals(0, status, "every step passed its checks");
        String report = Files.readString(out.resolve("report.md"));
        assertTrue(report.contains("Wharf / ActiveMQ Classic") && report.contains("RR-4 2KB persistent"), report);
        List<String> targets = CompareSteps.targets(CompareSteps.passedAndCounted(out));
        assertEquals(List.of("Wharf", "ActiveMQ Classic"), targets);
    }
}
