package org.wharfmq.server.flow;

import com.sun.management.OperatingSystemMXBean;
import org.junit.jupiter.api.Test;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.node.JmsInputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A measurement, not a test (its name keeps it out of the test runs): what an idle JMSInput reader of an
 * {@code xa: true} provider costs per second, by its node's receiveTimeout. One JVM holds an embedded Artemis, a server
 * with its flow host and a one-instance flow from Artemis to Wharf; for each round (a receiveTimeout in ms,
 * {@code -Dprobe.rounds}, default 100,5000,100,5000: 100 ms is the 100 ms poll as it was, one empty transaction per
 * poll) one message crosses, then over {@code -Dprobe.seconds} (default 10) of idle time it prints the XA calls
 * Artemis received (its own count), the JVM's CPU, the reader thread's CPU and the JVM's write system calls, per
 * second. Run as {@code ./mvnw -B -o -q -pl server/integration-tests -am verify -Dtest=JmsXaIdleProbe
 * -Dprobe.seconds=15 -Dsurefire.failIfNoSpecifiedTests=false -DfailIfNoTests=false}, lines {@code PROBE ...} in the
 * output (docs/performance-log.md, "Session 37: an idle XA JMS input").
 */
class JmsXaIdleProbe {

    @Test
    void probe() throws Exception {
        long window = Long.getLong("probe.seconds", 10);
        try (TestArtemis artemis = TestArtemis.onFreePort().start()) {
            FlowHost flowHost = new FlowHost(FlowHostSettings.defaults()
                    .withJmsProviders(List.of(artemis.provider("artemis", "P.IN").withXa(true))));
            try (TestServer server = TestServer.start(c -> c, config -> WharfServer.start(config, flowHost));
                 Connection wharf = new WharfConnectionFactory(server.server().vmUrl()).createConnection();
                 Connection art = artemis.connectionFactory().createConnection()) {
                wharf.start();
                Session ws = wharf.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Session as = art.createSession(false, Session.AUTO_ACKNOWLEDGE);
                OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
                ThreadMXBean threads = ManagementFactory.getThreadMXBean();
                String[] rounds = System.getProperty("probe.rounds", "100,5000,100,5000").split(",");
                int n = 0;
                for (String round : rounds) {
                    long ms = Long.parseLong(round);
                    String name = "p" + (++n);
                    flowHost.deploy(() -> FlowDefinition.builder(name)
                            .node("in", JmsInputNode.from("artemis", "jms/P.IN").receiveTimeout(Duration.ofMillis(ms)))
                            .node("out", OutputNode.queue("P.OUT")).wire("in", "out", "out").build(), 1);
                    as.createProducer(as.createQueue("P.IN")).send(as.createTextMessage("x"), DeliveryMode.PERSISTENT, 4, 0);
                    try (MessageConsumer out = ws.createConsumer(ws.createQueue("P.OUT"))) {
                        if (out.receive(30_000) == null) {
                            throw new AssertionError("the message did not cross");
                        }
                    }
                    Thread.sleep(1000); // idle from here on
                    long reader = readerThread(threads, "wharf-flow-" + name + "-in-1");
                    long calls0 = artemis.xaCalls(), starts0 = artemis.xaStarts(), cpu0 = os.getProcessCpuTime();
                    long rcpu0 = threads.getThreadCpuTime(reader);
                    String io0 = Files.readString(Path.of("/proc/self/io"));
                    long t0 = System.nanoTime();
                    Thread.sleep(window * 1000);
                    double s = (System.nanoTime() - t0) / 1e9;
                    long calls = artemis.xaCalls() - calls0, starts = artemis.xaStarts() - starts0;
                    long cpu = os.getProcessCpuTime() - cpu0, rcpu = threads.getThreadCpuTime(reader) - rcpu0;
                    String io1 = Files.readString(Path.of("/proc/self/io"));
                    System.out.printf("PROBE receiveTimeout=%d ms window=%.1f s: Artemis XA calls %.2f/s, XA starts %.2f/s;"
                                    + " JVM CPU %.2f ms/s; reader thread CPU %.3f ms/s; io syscw %+d wchar %+d write_bytes %+d; load %.1f%n",
                            ms, s, calls / s, starts / s, cpu / 1e6 / s, rcpu / 1e6 / s,
                            field(io1, "syscw") - field(io0, "syscw"), field(io1, "wchar") - field(io0, "wchar"),
                            field(io1, "write_bytes") - field(io0, "write_bytes"), os.getSystemLoadAverage());
                    flowHost.undeploy(name);
                }
            }
        }
    }

    /** The id of the thread named {@code name}. */
    static long readerThread(ThreadMXBean threads, String name) {
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().equals(name)) {
                return info.getThreadId();
            }
        }
        throw new AssertionError("no thread " + name);
    }

    /** A field of {@code /proc/self/io}'s text. */
    static long field(String io, String key) {
        for (String line : io.split("\n")) {
            if (line.startsWith(key + ":")) {
                return Long.parseLong(line.substring(key.length() + 1).trim());
            }
        }
        return -1;
    }
}
