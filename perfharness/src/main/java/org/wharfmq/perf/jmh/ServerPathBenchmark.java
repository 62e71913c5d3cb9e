package org.wharfmq.perf.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The server's share of one message, on one thread: a SEND frame handed to a connection's pipeline (as the decoder
 * hands it on), dispatched to its session, put on the queue (or routed to a topic's subscription), handed to the
 * waiting consumer of another connection and written as a DELIVER, which is encoded and dropped. The consumer returns
 * credit and acknowledges every {@link #BATCH} messages, as the client does. Both connections are embedded channels,
 * whose event loop is the calling thread, so a delivery is written inline as it is on a real event loop; the store
 * is the in-memory one ({@link EmbeddedServer}: completes at once), so a persistent send pays the session's store path
 * but no journal.
 * Frame decoding is {@link FrameCodecBenchmark}'s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ServerPathBenchmark {

    /** Messages between the consumer's ACK and CREDIT frames. */
    private static final int BATCH = 64;
    private static final int SESSION = EmbeddedConnections.SESSION;
    private static final int CONSUMER = 7;

    /** "queue": a queue send; "topic": a publication to one durable subscriber. */
    @Param({"queue", "topic"})
    public String destination;

    /** JMS PERSISTENT: the send waits for the store and is answered OK (the store completes at once). */
    @Param({"false", "true"})
    public boolean persistent;

    private EmbeddedChannel producer;
    private EmbeddedChannel consumer;
    private ByteBuf message;
    private EmbeddedServer server;
    private long delivered;

    @Setup
    public void setUp() {
        server = new EmbeddedServer();
        producer = server.connect(null);
        consumer = server.connect("bench-subscriber");
        boolean topic = destination.equals("topic");
        WireDestination target = topic ? WireDestination.topic("bench/prices") : WireDestination.queue("BENCH");
        consumer.writeInbound(new Frame.CreateConsumer(1, SESSION, CONSUMER, target, null, 2 * BATCH,
                topic ? Frame.CONSUMER_DURABLE : 0, topic ? "bench" : null));
        EmbeddedConnections.expectOk(consumer);
        message = EmbeddedConnections.message(target, persistent);
    }

    @Benchmark
    public int sendDeliver() {
        EmbeddedConnections.readInbound(producer,
                new Frame.Send(persistent ? 1 : 0, SESSION, 1, message.retainedDuplicate()));
        int written = EmbeddedConnections.drop(consumer);
        EmbeddedConnections.drop(producer); // its OKs (persistent) and PRODUCER_CREDITs, as a socket would take them
        if (++delivered % BATCH == 0) {
            consumer.writeInbound(new Frame.Ack(0, SESSION, List.of(new Frame.Consumed(CONSUMER, delivered))));
            consumer.writeInbound(new Frame.Credit(CONSUMER, BATCH));
        }
        return written;
    }

    @TearDown
    public void tearDown() {
        producer.finishAndReleaseAll();
        consumer.finishAndReleaseAll();
        server.close();
        message.release();
    }
}
