package org.wharfmq.server.flow;

import com.arjuna.ats.arjuna.common.arjPropertyManager;
import com.arjuna.ats.arjuna.coordinator.TxStats;
import com.sun.management.OperatingSystemMXBean;
import org.junit.jupiter.api.Test;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.DatabaseNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Statement;
import java.util.List;

/**
 * A measurement, not a test (its name keeps it out of the test runs): what an idle coordinated reader of a Wharf queue
 * costs per second. One JVM holds a server with its flow host, an XA H2 data source and a one-instance flow (a Wharf
 * queue, transaction mode YES, into a Database node inserting a row, then a Wharf queue); for each round
 * ({@code -Dprobe.rounds}, default 2) one message crosses, then over {@code -Dprobe.seconds} (default 10) of idle time
 * it prints the transactions Narayana began and rolled back (its own statistics, switched on here), the JVM's CPU, the
 * reader thread's CPU and the JVM's write system calls, per second, and how long the flow's undeploy took. It uses
 * nothing but what every build has, so it runs on the build before a change too. Run as {@code ./mvnw -B -o -q -pl
 * server/integration-tests -am verify -Dtest=FlowXaIdleProbe -Dprobe.seconds=15 -Dsurefire.failIfNoSpecifiedTests=false
 * -DfailIfNoTests=false}, lines {@code PROBE ...} in the output (docs/performance-log.md, "Session 38").
 */
class FlowXaIdleProbe {

    @Test
    void probe() throws Exception {
        long window = Long.getLong("probe.seconds", 10);
        int rounds = Integer.getInteger("probe.rounds", 2);
        arjPropertyManager.getCoordinatorEnvironmentBean().setEnableStatistics(true);
        TestDatabase database = TestDatabase.h2().xa();
        try (java.sql.Connection db = database.connect(); Statement sql = db.createStatement()) {
            sql.execute("CREATE TABLE moves (seq INTEGER PRIMARY KEY)");
        }
        FlowHost flowHost = new FlowHost(FlowHostSettings.defaults()
                .withDataSources(List.of(database.dataSource("moves"))));
        try (TestServer server = TestServer.start(c -> c, config -> WharfServer.start(config, flowHost));
             Connection wharf = new WharfConnectionFactory(server.server().vmUrl()).createConnection()) {
            wharf.start();
            Session session = wharf.createSession(false, Session.AUTO_ACKNOWLEDGE);
            OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            TxStats tx = TxStats.getInstance();
            for (int round = 1; round <= rounds; round++) {
                String name = "p" + round;
                flowHost.deploy(() -> FlowDefinition.builder(name)
                        .node("in", InputNode.queue("P.IN").transactionMode(TransactionMode.YES))
                        .node("row", new DatabaseNode("moves", "INSERT INTO moves (seq) VALUES (?)",
                                "UserProperties/seq"))
                        .node("out", OutputNode.queue("P.OUT"))
                        .wire("in", "out", "row").wire("row", "out", "out").build(), 1);
                TextMessage message = session.createTextMessage("x");
                message.setIntProperty("seq", round);
                session.createProducer(session.createQueue("P.IN")).send(message, DeliveryMode.PERSISTENT, 4, 0);
                try (MessageConsumer out = session.createConsumer(session.createQueue("P.OUT"))) {
                    if (out.receive(30_000) == null) {
                        throw new AssertionError("the message did not cross");
                    }
                }
                Thread.sleep(1000); // idle from here on
                long reader = JmsXaIdleProbe.readerThread(threads, "wharf-flow-" + name + "-1");
                long begun0 = tx.getNumberOfTransactions(), aborted0 = tx.getNumberOfAbortedTransactions();
                long cpu0 = os.getProcessCpuTime(), rcpu0 = threads.getThreadCpuTime(reader);
                String io0 = Files.readString(Path.of("/proc/self/io"));
                long t0 = System.nanoTime();
                Thread.sleep(window * 1000);
                double s = (System.nanoTime() - t0) / 1e9;
                long begun = tx.getNumberOfTransactions() - begun0;
                long aborted = tx.getNumberOfAbortedTransactions() - aborted0;
                long cpu = os.getProcessCpuTime() - cpu0, rcpu = threads.getThreadCpuTime(reader) - rcpu0;
                String io1 = Files.readString(Path.of("/proc/self/io"));
                long stopping = System.nanoTime();
                flowHost.undeploy(name);
                double stopMillis = (System.nanoTime() - stopping) / 1e6;
                System.out.printf("PROBE round %d window=%.1f s: XA transactions begun %.2f/s, rolled back %.2f/s;"
                                + " JVM CPU %.2f ms/s; reader thread CPU %.3f ms/s; io syscw %+d wchar %+d;"
                                + " undeploy %.0f ms; load %.1f%n",
                        round, s, begun / s, aborted / s, cpu / 1e6 / s, rcpu / 1e6 / s,
                        JmsXaIdleProbe.field(io1, "syscw") - JmsXaIdleProbe.field(io0, "syscw"),
                        JmsXaIdleProbe.field(io1, "wchar") - JmsXaIdleProbe.field(io0, "wchar"),
                        stopMillis, os.getSystemLoadAverage());
            }
        }
    }
}
