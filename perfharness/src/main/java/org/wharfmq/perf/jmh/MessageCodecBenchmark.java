package org.wharfmq.perf.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
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
import org.wharfmq.jms.WharfQueue;
import org.wharfmq.jms.message.MessageCodec;
import org.wharfmq.jms.message.RecentValues;
import org.wharfmq.jms.message.WharfBytesMessage;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import java.util.concurrent.TimeUnit;

/**
 * The client's side of every message: a send encodes the application's message straight into a pooled buffer
 * ({@link MessageCodec#encode}, on the application's thread), and a receive decodes a delivered message into a
 * new JMS message ({@link MessageCodec#decode}), what repeats from the message before (its destinations, property
 * names and string values) taken from it as a consumer's receives and a flow's in-process input take it, or all
 * decoded. The message is shaped like the request/reply workloads'
 * requests (the {@link Messages#request} the server-side benchmarks use).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MessageCodecBenchmark {

    /** Body bytes. */
    @Param({"256", "2048"})
    public int size;

    private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    private final WireDestination destination = WireDestination.queue("REQUEST");
    private WharfBytesMessage message;
    private ByteBuf delivered;
    private final RecentValues recent = new RecentValues();

    @Setup
    public void setUp() throws JMSException {
        message = new WharfBytesMessage();
        message.setJMSDeliveryMode(DeliveryMode.NON_PERSISTENT);
        message.setJMSTimestamp(1_700_000_000_000L);
        message.setJMSMessageID("ID:bench-connection:corr-1");
        message.setJMSCorrelationID("corr-1");
        message.setJMSReplyTo(new WharfQueue("REPLY"));
        message.setLongProperty("perfSeq", 42L);
        message.setStringProperty("region", "EMEA");
        message.writeBytes(new byte[size]);
        delivered = alloc.directBuffer(MessageCodec.sizeHint(message));
        MessageCodec.encode(message, destination, delivered);
    }

    @TearDown
    public void tearDown() {
        delivered.release();
    }

    /** A send's encoding: a pooled buffer of the hinted size, the message written into it, the buffer released. */
    @Benchmark
    public int encode() throws JMSException {
        ByteBuf buffer = alloc.ioBuffer(MessageCodec.sizeHint(message));
        try {
            MessageCodec.encode(message, destination, buffer);
            return buffer.readableBytes();
        } finally {
            buffer.release();
        }
    }

    /** A receive's decoding of a delivered message (the DELIVER's bytes) into a JMS message. */
    @Benchmark
    public WharfMessage decode() {
        delivered.readerIndex(0);
        return MessageCodec.decode(delivered, 1);
    }

    /** A receive's decoding as a consumer makes it: what the message before had the same taken from it. */
    @Benchmark
    public WharfMessage decodeRecent() {
        delivered.readerIndex(0);
        return MessageCodec.decode(delivered, 1, recent);
    }
}
