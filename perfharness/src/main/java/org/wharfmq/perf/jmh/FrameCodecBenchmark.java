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
import org.wharfmq.protocol.frame.FrameDecoder;
import org.wharfmq.protocol.frame.FrameEncoder;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.PropertySection;
import org.wharfmq.protocol.message.WireDestination;

import java.util.concurrent.TimeUnit;

/**
 * The wire path of every message: a SEND frame through {@link FrameEncoder} and back through
 * {@link FrameDecoder} (the handlers of the client's and the server's pipelines, in an embedded channel), and
 * the server's header-only read of the message ({@link MessageHeaders#read}), the property check inside it, and the
 * JMSXUserID lookup of the server's SEND check.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FrameCodecBenchmark {

    /** Body bytes. */
    @Param({"256", "2048", "20480"})
    public int size;

    private ByteBuf message;
    /** Index in {@link #message} of its property section. */
    private int properties;
    /** The headers of {@link #message}, for the JMSXUserID check. */
    private MessageHeaders headers;
    /** The recent destinations of {@link #readHeadersRecent}: a session's. */
    private final WireDestination[] recent = new WireDestination[4];
    private EmbeddedChannel encoder;
    private EmbeddedChannel decoder;

    @Setup
    public void setUp() {
        message = Messages.request(size, "corr-1");
        headers = MessageHeaders.read(message);
        properties = message.readerIndex() + headers.propertiesOffset();
        encoder = new EmbeddedChannel(FrameEncoder.INSTANCE);
        decoder = new EmbeddedChannel(new FrameDecoder(100 * 1024 * 1024));
    }

    @TearDown
    public void tearDown() {
        encoder.finishAndReleaseAll();
        decoder.finishAndReleaseAll();
        message.release();
    }

    /** Encode a SEND, decode it back; the decoded frame's message is a retained slice (no copy) and is released. */
    @Benchmark
    public int sendRoundTrip() {
        encoder.writeOutbound(new Frame.Send(7, 1, 1, message.retainedDuplicate()));
        ByteBuf out;
        while ((out = encoder.readOutbound()) != null) {
            decoder.writeInbound(out);
        }
        Frame.Send decoded = decoder.readInbound();
        int length = decoded.message().readableBytes();
        decoded.message().release();
        return length;
    }

    /** What the server reads of every SEND: the headers, and a check of the properties (not decoded), not the body. */
    @Benchmark
    public MessageHeaders readHeaders() {
        return MessageHeaders.read(message.duplicate());
    }

    /**
     * {@link #readHeaders} as a session or a receiver channel reads every message (BrokerSession, ReceiverPuts), with
     * its recent destinations: the message's JMSDestination is the one kept, not decoded and made again.
     */
    @Benchmark
    public MessageHeaders readHeadersRecent() {
        return MessageHeaders.read(message.duplicate(), recent);
    }

    /**
     * The property check alone (part of {@link #readHeaders}), an allocation-free walk, over the requests' two
     * properties (a long and a string).
     */
    @Benchmark
    public int checkProperties() {
        return PropertySection.skip(message, properties, message.readerIndex(), message.writerIndex());
    }

    /**
     * The server's JMSXUserID check of a SEND (BrokerSession, issue 21): a second walk over the checked properties for
     * the name, here over the requests' two properties, neither of them JMSXUserID (the whole walk, as for an
     * anonymous connection's message). Allocation-free.
     */
    @Benchmark
    public int findUserId() {
        return headers.userIdTag(message);
    }
}
