package org.wharfmq.perf.memory;

import io.netty.buffer.PooledByteBufAllocator;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.perf.options.OptionException;
import org.wharfmq.perf.workload.TempFiles;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.ServerConfig;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * {@code wharf perf memory [--messages N] [--size BYTES] [--url-kind tcp|vm] [--policy page|block]
 * [--max-page-bytes N]}: what one waiting
 * message costs the
 * server in memory. Starts a queue manager in this JVM, fills a queue with N non-persistent BytesMessages of the
 * given body size through the real JMS client (fire-and-forget sends, as a fast producer sends them, so many arrive
 * in one read), asks the server for the queue's depth until all are there, and prints the memory the server holds
 * for them: the Java heap in use after a full collection plus the direct memory Netty's pooled allocator holds (the
 * server's message buffers), each before and after the fill, divided by N. Then it drains the queue and prints the
 * same once more (what stays is pooled memory kept for reuse, not messages), checking that they come back in order.
 * It prints the fill and drain rates too.
 * With {@code --policy page} (the default, as the server's) a queue past the server's memory budget pages, so the
 * fill measures paging (issue 22: "10 million 2 KB messages with a 1 GB heap"); {@code --policy block} with a heap
 * large enough keeps every message in memory (and a fill past the budget waits for ever: it has no consumer).
 *
 * <p>A measurement, not a test: run it with a fixed heap so the collector's sizing does not move the numbers, e.g.
 * {@code WHARF_JAVA_OPTS="-Xmx4g" bin/wharf perf memory --messages 200000 --size 2048}.
 */
public final class QueueMemoryProbe {

    private final PrintStream out;
    private int messages = 200_000;
    private int size = 2048;
    private boolean inVm;
    private MemoryPolicy policy = MemoryPolicy.PAGE;
    private long maxPageBytes;

    private QueueMemoryProbe(PrintStream out) {
        this.out = out;
    }

    /** The {@code wharf perf memory} command. */
    public static int run(String[] args) throws Exception {
        QueueMemoryProbe probe = new QueueMemoryProbe(System.out);
        for (int i = 0; i < args.length; i++) {
            if (i + 1 >= args.length) {
                throw new OptionException("memory: " + args[i] + " needs a value");
            }
            switch (args[i]) {
                case "--messages" -> probe.messages = Integer.parseInt(args[++i]);
                case "--size" -> probe.size = Integer.parseInt(args[++i]);
                case "--url-kind" -> probe.inVm = args[++i].equals("vm");
                case "--policy" -> probe.policy = MemoryPolicy.parse(args[++i], "--policy");
                case "--max-page-bytes" -> probe.maxPageBytes = Long.parseLong(args[++i]);
                default -> throw new OptionException("memory: unknown option " + args[i]
                        + " (--messages N, --size BYTES, --url-kind tcp|vm, --policy page|block, --max-page-bytes N)");
            }
        }
        probe.measure(UnaryOperator.identity());
        return 0;
    }

    private void measure(UnaryOperator<ServerConfig.Builder> settings) throws Exception {
        Path data = Files.createTempDirectory("wharf-perf-memory");
        String queueName = "MEMORY.PROBE";
        ServerConfig config = settings.apply(ServerConfig.builder().host("127.0.0.1").port(0)
                .inVmName("wharf-memory-" + UUID.randomUUID()).dataDirectory(data)
                .maxQueueDepth(Math.max(messages, 1)).memoryPolicy(policy).maxPageBytes(maxPageBytes)).build();
        try (WharfServer server = WharfServer.start(config)) {
            String url = inVm ? server.vmUrl() : server.tcpUrl();
            Connection connection = new WharfConnectionFactory(url).createConnection();
            try {
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageProducer producer = session.createProducer(session.createQueue(queueName));
                producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
                BytesMessage message = session.createBytesMessage();
                message.writeBytes(new byte[size]);
                producer.send(message); // warms the pool and the queue, then taken off again
                connection.start();
                MessageConsumer consumer = session.createConsumer(session.createQueue(queueName));
                consumer.receive(10_000);
                consumer.close();

                Sample before = Sample.take();
                long fillStart = System.nanoTime();
                for (int i = 0; i < messages; i++) {
                    message.setIntProperty("n", i); // the drain checks the order
                    producer.send(message);
                }
                awaitDepth(server, queueName, messages);
                long fillNanos = System.nanoTime() - fillStart;
                long paged = server.queueManager().queue(queueName).paged();
                Sample filled = Sample.take();
                out.printf("wharf-perf: memory messages=%d body=%d transport=%s policy=%s%n", messages, size,
                        inVm ? "vm" : "tcp", policy);
                out.printf("  fill              %,.0f messages/s (%.1f s); %,d of them paged%n",
                        messages / (fillNanos / 1e9), fillNanos / 1e9, paged);
                out.printf("  heap after GC     %,14d -> %,14d bytes: %,8.0f per message%n", before.heap, filled.heap,
                        (filled.heap - before.heap) / (double) messages);
                out.printf("  pooled direct     %,14d -> %,14d bytes: %,8.0f per message%n", before.direct, filled.direct,
                        (filled.direct - before.direct) / (double) messages);
                out.printf("  heap + direct     %,8.0f bytes per waiting message%n",
                        (filled.total() - before.total()) / (double) messages);
                out.printf("  process resident  %,14d -> %,14d bytes%n", before.resident, filled.resident);

                long drainStart = System.nanoTime();
                MessageConsumer drain = session.createConsumer(session.createQueue(queueName));
                for (int i = 0; i < messages; i++) {
                    javax.jms.Message m = drain.receive(30_000);
                    if (m == null) {
                        throw new IllegalStateException("only " + i + " of " + messages + " messages came back");
                    }
                    if (!m.propertyExists("n") || m.getIntProperty("n") != i) {
                        throw new IllegalStateException("message " + m.getObjectProperty("n") + " came back as the "
                                + i + "th: out of order");
                    }
                }
                long drainNanos = System.nanoTime() - drainStart;
                drain.close();
                out.printf("  drain             %,.0f messages/s (%.1f s); all %d in the order sent%n",
                        messages / (drainNanos / 1e9), drainNanos / 1e9, messages);
                Sample drained = Sample.take();
                out.printf("  after draining    heap %,d, pooled direct %,d bytes (kept by the pool for reuse)%n",
                        drained.heap, drained.direct);
            } finally {
                connection.close();
            }
        } finally {
            TempFiles.deleteTree(data);
        }
    }

    /** Asks the server until the queue holds {@code expected} messages: fire-and-forget sends are not answered. */
    private static void awaitDepth(WharfServer server, String queue, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + 1_200_000_000_000L; // 20 minutes: 10 million messages take a while
        while (server.queueManager().depth(queue) < expected) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the queue holds " + server.queueManager().depth(queue) + " of "
                        + expected + " messages after 20 minutes");
            }
            Thread.sleep(20);
        }
    }

    /** The memory of this JVM at one moment, after full collections. */
    private record Sample(long heap, long direct, long resident) {

        static Sample take() throws InterruptedException {
            for (int i = 0; i < 3; i++) {
                System.gc();
                Thread.sleep(100);
            }
            long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            long direct = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
            return new Sample(heap, direct, readResident());
        }

        long total() {
            return heap + direct;
        }

        /** VmRSS of this process from /proc, 0 where there is none. */
        private static long readResident() {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                    if (line.startsWith("VmRSS:")) {
                        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                    }
                }
            } catch (Exception e) {
                // not Linux
            }
            return 0;
        }
    }
}
