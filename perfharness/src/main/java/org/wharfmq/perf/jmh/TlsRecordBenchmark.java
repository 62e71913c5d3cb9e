package org.wharfmq.perf.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
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
import org.wharfmq.server.TestCertificates;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One TLS record from a sender's {@link SslHandler} to a receiver's, as a channel's run crosses: a direct buffer of
 * {@code size} bytes written and flushed on the sending end (one record), the record read on the receiving end and
 * its plain text taken, over two embedded channels, after a TLS 1.3 handshake between the two ends. Each end's engine
 * is {@code openssl} (netty-tcnative's BoringSSL, as a queue manager's listener and sender channels run it) or
 * {@code jdk} (the JDK's, as a JMS client's socket runs it); {@code none} is the same two channels without TLS, the
 * floor. The cipher suite is the one the sending end offers alone (BoringSSL offers its TLS 1.3 suites in its own
 * order, AES-128-GCM first on AES hardware, so an {@code openssl} sender negotiates that whatever is asked: the
 * set-up says so and refuses the pair). The CPU per record is what to read ({@code -prof perfnorm:events=task-clock}
 * beside the time per record on a loaded machine).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class TlsRecordBenchmark {

    /** The sending end's engine: openssl, jdk or none (no TLS on either end). */
    @Param({"openssl", "jdk"})
    public String sender;
    /** The receiving end's engine: openssl (a queue manager's listener) or jdk (ignored when the sender's is none). */
    @Param({"openssl"})
    public String receiver;
    /**
     * The TLS 1.3 cipher suite the sender offers; {@code TLS_AES_256_GCM_SHA384} with a {@code jdk} sender only
     * ({@code -p sender=jdk -p cipher=TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384}: what a JMS client's suite costs).
     */
    @Param({"TLS_AES_128_GCM_SHA256"})
    public String cipher;
    /** Plain-text bytes per record. */
    @Param({"2048"})
    public int size;

    private EmbeddedChannel sending;
    private EmbeddedChannel receiving;
    private final byte[] bytes = new byte[65536];

    @Setup
    public void setUp() throws Exception {
        ThreadLocalRandom.current().nextBytes(bytes);
        if (sender.equals("none")) {
            sending = new EmbeddedChannel();
            receiving = new EmbeddedChannel();
            return;
        }
        TestCertificates.Issued ca = TestCertificates.ca("benchmark CA");
        TestCertificates.Issued key = TestCertificates.issue(ca, "CN=localhost", Duration.ofDays(1), "localhost");
        SslContext server = SslContextBuilder.forServer(key.keys().getPrivate(), key.certificate(), key.issuer())
                .sslProvider(provider(receiver)).protocols("TLSv1.3").build();
        SslContext client = SslContextBuilder.forClient().sslProvider(provider(sender)).protocols("TLSv1.3")
                .trustManager(ca.certificate()).ciphers(List.of(cipher)).build();
        SslHandler clientHandler = client.newHandler(ByteBufAllocator.DEFAULT, "localhost", 7414);
        SslHandler serverHandler = server.newHandler(ByteBufAllocator.DEFAULT);
        sending = new EmbeddedChannel(clientHandler);
        receiving = new EmbeddedChannel(serverHandler);
        for (int i = 0; i < 100 && !(clientHandler.handshakeFuture().isDone() && serverHandler.handshakeFuture().isDone()); i++) {
            shuttle(sending, receiving);
            shuttle(receiving, sending);
        }
        shuttle(receiving, sending); // the session tickets
        if (!clientHandler.handshakeFuture().isSuccess()) {
            throw new IllegalStateException("no handshake", clientHandler.handshakeFuture().cause());
        }
        String negotiated = clientHandler.engine().getSession().getCipherSuite();
        if (!negotiated.equals(cipher)) {
            throw new IllegalStateException("asked for " + cipher + ", negotiated " + negotiated + " (" + sender + " sender)");
        }
        drain(sending);
    }

    private static SslProvider provider(String engine) {
        return switch (engine) {
            case "openssl" -> SslProvider.OPENSSL;
            case "jdk" -> SslProvider.JDK;
            default -> throw new IllegalArgumentException(engine);
        };
    }

    /** Moves what {@code from} wrote into {@code to} as read bytes. */
    private static void shuttle(EmbeddedChannel from, EmbeddedChannel to) {
        for (Object out; (out = from.readOutbound()) != null; ) {
            to.writeInbound(out);
        }
    }

    /** Releases what {@code channel} read; its bytes. */
    private static int drain(EmbeddedChannel channel) {
        int n = 0;
        for (ByteBuf in; (in = channel.readInbound()) != null; ) {
            n += in.readableBytes();
            in.release();
        }
        return n;
    }

    @TearDown
    public void tearDown() {
        sending.finishAndReleaseAll();
        receiving.finishAndReleaseAll();
    }

    /** A run of {@code size} bytes copied into a pooled direct buffer, written, flushed, read at the other end. */
    @Benchmark
    public int record() {
        ByteBuf run = sending.alloc().directBuffer(size);
        run.writeBytes(bytes, 0, size);
        sending.write(run, sending.voidPromise());
        sending.flush();
        shuttle(sending, receiving);
        return drain(receiving);
    }
}
