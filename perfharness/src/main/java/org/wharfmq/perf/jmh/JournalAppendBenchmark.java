package org.wharfmq.perf.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.Durability;
import org.wharfmq.server.store.JournalMessageStore;
import org.wharfmq.server.store.StoreCompletion;
import org.wharfmq.server.store.StoredMessage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * The journal's append + sync batch, through the store the server uses ({@link JournalMessageStore}): one
 * operation hands {@link #batch} persistent messages of {@link #size} bytes to the journal at once, as that many
 * connections sending together would, and waits until every one is acknowledged (appended, and with durability
 * {@code fsync} forced to the disk). The consume records of the previous operation's messages go in the same
 * batch, not waited for, so the journal stays small and reclamation works as in a server.
 *
 * <p>Read the score as batches per second; times {@link #batch}, records per second. The {@code syncs} counter
 * says how many disk syncs served them: with group commit, about one per operation whatever the batch.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class JournalAppendBenchmark {

    /** Messages handed over together, each with its own waiter. */
    @Param({"1", "16", "64"})
    public int batch;

    /** Bytes per message. */
    @Param({"2048"})
    public int size;

    /** {@code fsync}: acknowledged after the disk sync; {@code os}: after the write to the mapped file. */
    @Param({"fsync", "os"})
    public String durability;

    private Path directory;
    private JournalMessageStore store;
    private ByteBuf content;
    private long sequence;
    private final List<Message> previous = new ArrayList<>();
    private final List<Message> current = new ArrayList<>();
    private final Waiters waiters = new Waiters();

    /** Journal syncs per measured interval, reported beside the score. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Syncs {
        /** Disk syncs (durability os: batches) done while the operations ran. */
        public long syncs;
    }

    private record Message(long sequence, ByteBuf content) implements StoredMessage {
        @Override
        public String queueName() {
            return "BENCH";
        }
    }

    /** Counts down the acknowledgements of one operation; the benchmark thread parks until they are all in. */
    private static final class Waiters implements StoreCompletion {
        private volatile Thread owner;
        private volatile int outstanding;
        private volatile Throwable failure;

        void expect(int n) {
            owner = Thread.currentThread();
            outstanding = n;
        }

        @Override
        public synchronized void completed(Throwable cause) {
            if (cause != null) {
                failure = cause;
            }
            if (--outstanding == 0) {
                LockSupport.unpark(owner);
            }
        }

        void await() {
            while (outstanding > 0) {
                LockSupport.park(this);
            }
            if (failure != null) {
                throw new IllegalStateException("the journal refused a record", failure);
            }
        }
    }

    @Setup(Level.Trial)
    public void open() throws IOException {
        directory = Files.createTempDirectory("wharf-journal-bench-");
        ServerConfig config = ServerConfig.builder().dataDirectory(directory)
                .durability(Durability.parse(durability)).build();
        store = JournalMessageStore.open(config);
        content = Unpooled.directBuffer(size).writeZero(size);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        store.close();
        content.release();
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** One batch: {@link #batch} puts acknowledged, plus the removes of the previous batch. */
    @Benchmark
    public void appendAndSync(Syncs counters) {
        long syncsBefore = store.syncs();
        current.clear();
        for (int i = 0; i < batch; i++) {
            current.add(new Message(++sequence, content));
        }
        waiters.expect(batch);
        for (Message m : current) {
            store.put(m, waiters);
        }
        if (!previous.isEmpty()) {
            store.remove(previous, StoreCompletion.NONE);
        }
        waiters.await();
        previous.clear();
        previous.addAll(current);
        counters.syncs += store.syncs() - syncsBefore;
    }
}
