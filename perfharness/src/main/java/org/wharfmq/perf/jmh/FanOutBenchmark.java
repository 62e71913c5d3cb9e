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
 * The server's share of one publication to many subscribers, on one thread, PS-N's shape: a SEND to a topic handed
 * to the publisher's connection pipeline, routed to one copy per non-durable subscription, each copy handed to its
 * subscriber's consumer on a connection of its own and written as a DELIVER (encoded and dropped). Each subscriber
 * returns credit and acknowledges every {@link #BATCH} messages, as the client does. All connections are embedded
 * channels, whose event loop is the calling thread. Time and allocation are per publication: divide by
 * {@link #subscribers} for a delivery's share. {@link ServerPathBenchmark} is the one-subscriber path.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class FanOutBenchmark {

    /** Messages between a subscriber's ACK and CREDIT frames. */
    private static final int BATCH = 64;
    private static final int SESSION = EmbeddedConnections.SESSION;
    private static final int CONSUMER = 7;

    /** Subscribers of the topic, each on its own connection. */
    @Param({"100"})
    public int subscribers;

    private EmbeddedChannel publisher;
    private EmbeddedChannel[] subscriberChannels;
    private ByteBuf message;
    private EmbeddedServer server;
    private long published;

    @Setup
    public void setUp() {
        server = new EmbeddedServer();
        publisher = server.connect(null);
        WireDestination topic = WireDestination.topic("bench/prices");
        subscriberChannels = new EmbeddedChannel[subscribers];
        for (int i = 0; i < subscribers; i++) {
            subscriberChannels[i] = server.connect(null);
            subscriberChannels[i].writeInbound(new Frame.CreateConsumer(1, SESSION, CONSUMER, topic, null, 2 * BATCH,
                    0, null));
            EmbeddedConnections.expectOk(subscriberChannels[i]);
        }
        message = EmbeddedConnections.message(topic, false);
    }

    @Benchmark
    public int publish() {
        EmbeddedConnections.readInbound(publisher, new Frame.Send(0, SESSION, 1, message.retainedDuplicate()));
        EmbeddedConnections.drop(publisher); // its PRODUCER_CREDITs, as a socket would take them
        int written = 0;
        boolean settle = ++published % BATCH == 0;
        for (EmbeddedChannel subscriber : subscriberChannels) {
            written += EmbeddedConnections.drop(subscriber);
            if (settle) {
                subscriber.writeInbound(new Frame.Ack(0, SESSION, List.of(new Frame.Consumed(CONSUMER, published))));
                subscriber.writeInbound(new Frame.Credit(CONSUMER, BATCH));
            }
        }
        if (written < subscribers) { // a DELIVER is one or more buffers
            throw new IllegalStateException(written + " buffers written for " + subscribers + " subscribers");
        }
        return written;
    }

    @TearDown
    public void tearDown() {
        publisher.finishAndReleaseAll();
        for (EmbeddedChannel subscriber : subscriberChannels) {
            subscriber.finishAndReleaseAll();
        }
        server.close();
        message.release();
    }
}
