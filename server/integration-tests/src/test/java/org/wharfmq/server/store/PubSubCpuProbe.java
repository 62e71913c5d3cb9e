package org.wharfmq.server.store;

import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * PS-N's shape in one JVM, measured in CPU time and allocation per delivery rather than in deliveries per second:
 * the server over TCP loopback, SUBSCRIBERS non-durable subscribers (25 sessions to a connection, as the perf
 * harness's subscriber JVMs have them, each session a thread calling {@code receive}, AUTO_ACKNOWLEDGE), one publisher
 * of non-persistent 2 KiB BytesMessages at most {@value #WINDOW} publications ahead of the slowest subscriber. After
 * WARMUP deliveries it reads every thread's CPU time and allocated bytes, and again after MEASURED more, and prints
 * both per delivery for each kind of thread (and, on Linux, its context switches per delivery, the wake-ups): the subscribers' threads (the client's receive path), the server's
 * {@code wharf-io} event loops (fan-out, DELIVER writes, ACK and CREDIT reads), the publisher, the client's reader
 * threads. A thread's CPU time leaves out the time it waited for a core, so on a machine shared with other work this
 * compares two builds where a rate cannot (alternate them: base, new, new, base ...).
 *
 * <pre>java @bin/jvm.options -cp ... org.wharfmq.server.store.PubSubCpuProbe [SUBSCRIBERS] [WARMUP] [MEASURED]</pre>
 */
public final class PubSubCpuProbe {

    private static final int SESSIONS_PER_CONNECTION = 25;
    private static final int WINDOW = 500;
    private static final int SIZE = 2048;

    private static volatile boolean stopping;

    private PubSubCpuProbe() {
    }

    public static void main(String[] args) throws Exception {
        int subscribers = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        long warmup = args.length > 1 ? Long.parseLong(args[1]) : 100_000;
        long measured = args.length > 2 ? Long.parseLong(args[2]) : 300_000;
        Path data = Files.createTempDirectory("wharf-pubsub-probe-");
        ServerConfig config = ServerConfig.builder().port(0).host("127.0.0.1").inVmName("pubsub-probe")
                .dataDirectory(data).build();
        try (WharfServer server = WharfServer.builder(config).start()) {
            WharfConnectionFactory factory = new WharfConnectionFactory(server.tcpUrl());
            AtomicLongArray received = new AtomicLongArray(subscribers);
            List<Connection> connections = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < subscribers; i++) {
                if (i % SESSIONS_PER_CONNECTION == 0) {
                    connections.add(factory.createConnection());
                }
                Session session = connections.get(connections.size() - 1).createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer consumer = session.createConsumer(session.createTopic("probe/prices"));
                int index = i;
                threads.add(new Thread(() -> receive(consumer, received, index), "subscriber-" + i));
            }
            connections.forEach(PubSubCpuProbe::start);
            threads.forEach(Thread::start);
            Connection publisherConnection = factory.createConnection();
            connections.add(publisherConnection);
            Session session = publisherConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createTopic("probe/prices"));
            producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
            BytesMessage message = session.createBytesMessage();
            message.writeBytes(new byte[SIZE]);

            publish(producer, message, received, warmup / subscribers);
            Map<String, Long> switchesBefore = contextSwitches();
            Map<String, long[]> before = threadTotals();
            long start = System.nanoTime();
            long deliveriesBefore = sum(received);
            publish(producer, message, received, (warmup + measured) / subscribers);
            Map<String, long[]> after = threadTotals();
            Map<String, Long> switchesAfter = contextSwitches();
            double seconds = (System.nanoTime() - start) / 1e9;
            long deliveries = sum(received) - deliveriesBefore;
            stopping = true;

            StringBuilder line = new StringBuilder(String.format("%,d deliveries to %d subscribers, %,.0f/s;"
                    + " per delivery, CPU time and allocated bytes by thread:", deliveries, subscribers, deliveries / seconds));
            double all = 0;
            for (Map.Entry<String, long[]> e : after.entrySet()) {
                long[] b = before.getOrDefault(e.getKey(), new long[2]);
                double cpu = (e.getValue()[0] - b[0]) / 1e3 / deliveries;
                double bytes = (double) (e.getValue()[1] - b[1]) / deliveries;
                all += cpu;
                if (cpu >= 0.05 || bytes >= 1) {
                    line.append(String.format(" %s %.2f us %.0f B;", e.getKey(), cpu, bytes));
                }
            }
            System.out.println(line.append(String.format(" all %.2f us", all)));
            StringBuilder switches = new StringBuilder("context switches per delivery by thread:");
            double allSwitches = 0;
            for (Map.Entry<String, Long> e : switchesAfter.entrySet()) {
                double perDelivery = (double) (e.getValue() - switchesBefore.getOrDefault(e.getKey(), 0L)) / deliveries;
                allSwitches += perDelivery;
                if (perDelivery >= 0.005) {
                    switches.append(String.format(" %s %.3f;", e.getKey(), perDelivery));
                }
            }
            System.out.println(switches.append(String.format(" all %.3f", allSwitches)));
            for (Connection c : connections) {
                c.close();
            }
        }
    }

    private static void start(Connection connection) {
        try {
            connection.start();
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void receive(MessageConsumer consumer, AtomicLongArray received, int index) {
        try {
            while (!stopping) {
                if (consumer.receive(200) != null) {
                    received.incrementAndGet(index);
                }
            }
        } catch (JMSException e) {
            if (!stopping) {
                e.printStackTrace();
            }
        }
    }

    /** Publishes until {@code total} publications are out and every subscriber has received them all. */
    private static void publish(MessageProducer producer, BytesMessage message, AtomicLongArray received, long total)
            throws JMSException, InterruptedException {
        long published = slowest(received);
        while (published < total) {
            if (published - slowest(received) >= WINDOW) {
                Thread.yield();
                continue;
            }
            producer.send(message);
            published++;
        }
        while (slowest(received) < total) {
            Thread.sleep(1);
        }
    }

    private static long slowest(AtomicLongArray received) {
        long min = Long.MAX_VALUE;
        for (int i = 0; i < received.length(); i++) {
            min = Math.min(min, received.get(i));
        }
        return min;
    }

    private static long sum(AtomicLongArray received) {
        long sum = 0;
        for (int i = 0; i < received.length(); i++) {
            sum += received.get(i);
        }
        return sum;
    }

    /**
     * Context switches (voluntary and not) of the live threads, summed by kind as {@link #threadTotals} sums them,
     * from the thread names the kernel keeps (cut at 15 characters: {@code wharf-client-re} is a link's reader); empty
     * where there is no {@code /proc}.
     */
    private static Map<String, Long> contextSwitches() throws java.io.IOException {
        Map<String, Long> totals = new TreeMap<>();
        Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks)) {
            return totals;
        }
        try (var list = Files.list(tasks)) {
            for (Path task : (Iterable<Path>) list::iterator) {
                try {
                    String name = Files.readString(task.resolve("comm")).trim();
                    long switches = 0;
                    for (String l : Files.readAllLines(task.resolve("status"))) {
                        if (l.startsWith("voluntary_ctxt_switches:") || l.startsWith("nonvoluntary_ctxt_switches:")) {
                            switches += Long.parseLong(l.substring(l.indexOf(':') + 1).trim());
                        }
                    }
                    String kind = name.equals("main") ? "publisher" : name.replaceAll("[-#]?\\d.*$", "");
                    totals.merge(kind, switches, Long::sum);
                } catch (java.io.IOException | RuntimeException gone) {
                    // the thread ended meanwhile
                }
            }
        }
        return totals;
    }

    /**
     * CPU nanoseconds and allocated bytes of the live threads, summed by kind: the thread's name up to its first digit
     * ({@code subscriber-7}, {@code wharf-io-2}, {@code wharf-client-reader-127.0.0.1:...}).
     */
    private static Map<String, long[]> threadTotals() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Map<String, long[]> totals = new TreeMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            long cpu = threads.getThreadCpuTime(t.getId());
            if (cpu < 0) {
                continue;
            }
            String kind = t.getName().equals("main") ? "publisher"
                    : t.getName().replaceAll("[-#]?\\d.*$", "");
            long[] sum = totals.computeIfAbsent(kind, k -> new long[2]);
            sum[0] += cpu;
            sum[1] += threads.getThreadAllocatedBytes(t.getId());
        }
        return totals;
    }
}
