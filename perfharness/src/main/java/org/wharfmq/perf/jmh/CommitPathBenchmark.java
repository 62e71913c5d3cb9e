package org.wharfmq.perf.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
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
 * The server's share of one step of a message flow, on one thread: a producer's persistent SEND to BENCH.IN is
 * delivered to the flow's consumer in a transacted session, which sends a persistent message to BENCH.OUT and
 * commits with the one it consumed; the commit settles the input, offers the output to BENCH.OUT's waiting consumer
 * (another connection, written as a DELIVER) and answers. The consumers return credit, and BENCH.OUT's acknowledges,
 * every {@link #BATCH} messages. Embedded channels and the in-memory store ({@link EmbeddedServer}): the
 * commit's store completion runs inline, so this measures the commit path's own work and allocation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CommitPathBenchmark {

    /** Messages between the consumers' CREDIT (and ACK) frames. */
    private static final int BATCH = 64;
    private static final int SESSION = EmbeddedConnections.SESSION;
    private static final int FLOW_SESSION = 2;
    private static final int FLOW_CONSUMER = 3;
    private static final int OUTPUT_CONSUMER = 7;

    private EmbeddedChannel producer;
    private EmbeddedChannel flow;
    private EmbeddedChannel consumer;
    private ByteBuf input;
    private ByteBuf output;
    private EmbeddedServer server;
    private long steps;

    @Setup
    public void setUp() {
        server = new EmbeddedServer();
        producer = server.connect(null);
        flow = server.connect(null);
        consumer = server.connect(null);
        WireDestination in = WireDestination.queue("BENCH.IN");
        WireDestination out = WireDestination.queue("BENCH.OUT");
        flow.writeInbound(new Frame.CreateSession(2, FLOW_SESSION, true, 1));
        EmbeddedConnections.expectOk(flow);
        flow.writeInbound(new Frame.CreateConsumer(3, FLOW_SESSION, FLOW_CONSUMER, in, null, 2 * BATCH, 0, null));
        EmbeddedConnections.expectOk(flow);
        consumer.writeInbound(new Frame.CreateConsumer(2, SESSION, OUTPUT_CONSUMER, out, null, 2 * BATCH, 0, null));
        EmbeddedConnections.expectOk(consumer);
        input = EmbeddedConnections.message(in, true);
        output = EmbeddedConnections.message(out, true);
    }

    @Benchmark
    public int getPutCommit() {
        EmbeddedConnections.readInbound(producer, new Frame.Send(1, SESSION, 1, input.retainedDuplicate()));
        EmbeddedConnections.drop(producer); // its OK and PRODUCER_CREDITs
        EmbeddedConnections.drop(flow); // the input's DELIVER
        long step = ++steps; // the flow session's delivery id of the input
        EmbeddedConnections.readInbound(flow, new Frame.Send(0, FLOW_SESSION, 1, output.retainedDuplicate()));
        EmbeddedConnections.readInbound(flow,
                new Frame.Commit(1, FLOW_SESSION, List.of(new Frame.Consumed(FLOW_CONSUMER, step))));
        int written = EmbeddedConnections.drop(consumer); // the output's DELIVER
        EmbeddedConnections.drop(flow); // the commit's OK
        if (step % BATCH == 0) {
            EmbeddedConnections.readInbound(flow, new Frame.Credit(FLOW_CONSUMER, BATCH));
            consumer.writeInbound(new Frame.Ack(0, SESSION, List.of(new Frame.Consumed(OUTPUT_CONSUMER, step))));
            consumer.writeInbound(new Frame.Credit(OUTPUT_CONSUMER, BATCH));
        }
        return written;
    }

    @TearDown
    public void tearDown() {
        if (server.depth("BENCH.IN") != 0) { // the commits settled every input
            throw new IllegalStateException("BENCH.IN holds " + server.depth("BENCH.IN") + " messages");
        }
        producer.finishAndReleaseAll();
        flow.finishAndReleaseAll();
        consumer.finishAndReleaseAll();
        server.close();
        input.release();
        output.release();
    }
}
