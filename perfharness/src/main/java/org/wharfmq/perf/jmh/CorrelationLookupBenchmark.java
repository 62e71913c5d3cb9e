package org.wharfmq.perf.jmh;

import io.netty.buffer.ByteBuf;
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
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.protocol.selector.SelectorParseException;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.queue.DeliveryWindow;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.QueueConsumer;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.queue.QueuedMessage;
import org.wharfmq.server.store.InMemoryMessageStore;

import java.util.concurrent.TimeUnit;

/**
 * A reply picked out of a deep shared reply queue by {@code JMSCorrelationID = '...'}: the consumer a requester
 * opens for its reply finds it through the queue's correlation index, whatever the depth. The message taken is
 * acknowledged and an equal one put back at the tail, so the depth stays at {@link #depth}. For contrast,
 * {@link #scanWithoutIndex} asks for the same message with a selector the index cannot use, which visits the
 * queue in order.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CorrelationLookupBenchmark {

    /** Messages waiting on the reply queue. */
    @Param({"10000", "100000"})
    public int depth;

    private static final int SELECTORS = 1024;

    private LocalQueue queue;
    private ByteBuf[] contents;
    private Selector[] indexed;
    private Selector[] unindexed;
    private int next;

    /** Stands in for a server consumer with one message of credit: it just keeps what it is given. */
    private static final class OneShotConsumer implements QueueConsumer {
        private final Selector selector;
        private final DeliveryWindow window = new DeliveryWindow(1, false);
        private QueuedMessage received;

        OneShotConsumer(Selector selector) {
            this.selector = selector;
        }

        @Override
        public Selector selector() {
            return selector;
        }

        @Override
        public DeliveryWindow window() {
            return window;
        }

        @Override
        public void deliver(QueuedMessage message) {
            received = message;
        }

        @Override
        public void flushDeliveries() {
        }
    }

    @Setup(Level.Trial)
    public void fill() throws SelectorParseException {
        InMemoryMessageStore store = new InMemoryMessageStore();
        QueueManager queues = new QueueManager(ServerConfig.defaults(), store, java.time.InstantSource.system());
        queue = new LocalQueue("REPLY", Long.MAX_VALUE, false, queues.persistence(), queues.deadLetters());
        contents = new ByteBuf[depth];
        for (int i = 0; i < depth; i++) {
            contents[i] = Messages.request(64, "corr-" + i);
            put(i);
        }
        indexed = new Selector[SELECTORS];
        unindexed = new Selector[SELECTORS];
        for (int k = 0; k < SELECTORS; k++) {
            int i = (int) ((long) k * depth / SELECTORS);
            indexed[k] = Selector.parse("JMSCorrelationID = 'corr-" + i + "'");
            unindexed[k] = Selector.parse("JMSCorrelationID = 'corr-" + i + "' OR JMSPriority = 99");
        }
    }

    private void put(int i) {
        ByteBuf content = contents[i].retainedDuplicate();
        QueuedMessage m = new QueuedMessage(queue, content, MessageHeaders.read(content.duplicate()));
        queue.reserve(m);
        queue.offer(m);
    }

    @TearDown(Level.Trial)
    public void drain() {
        queue.clear();
        for (ByteBuf b : contents) {
            b.release();
        }
    }

    private QueuedMessage take(Selector selector) {
        OneShotConsumer consumer = new OneShotConsumer(selector);
        queue.addConsumer(consumer);
        queue.removeConsumer(consumer);
        QueuedMessage m = consumer.received;
        queue.acknowledge(m);
        String correlationId = m.correlationId();
        put(Integer.parseInt(correlationId.substring("corr-".length())));
        return m;
    }

    /** The request/reply consumer: one index lookup. */
    @Benchmark
    public QueuedMessage indexedLookup() {
        return take(indexed[next++ & (SELECTORS - 1)]);
    }

    /** The same reply with a selector the index cannot serve: every message before it is evaluated. */
    @Benchmark
    public QueuedMessage scanWithoutIndex() {
        return take(unindexed[next++ & (SELECTORS - 1)]);
    }
}
