package org.wharfmq.client.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.EncoderException;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslHandler;
import org.wharfmq.client.core.ClientConfiguration;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameEncoder;
import org.wharfmq.protocol.message.TransmissionHeader;

/**
 * How a link on a {@link NetworkLoop} writes the frames of one drain: their bytes, header and message together, copied
 * into runs of exactly {@link #runBytes()} bytes, the last run of a drain shorter. The run's size is the link kind's.
 * On a plain socket it is {@link ClientConfiguration#STAGED_BUFFER_BYTES}, as a blocking {@link SocketLink} stages its
 * writes: a burst of short frames is one outbound entry and one iovec, rather than a header buffer and a message (a
 * composite, on a transmission queue) each. Under TLS it is {@link ClientConfiguration#TLS_RECORD_BYTES}, the most one
 * record carries, and the {@link SslHandler} wraps each run as it is, one record: a burst goes into as few records as
 * its bytes need, and the handler never joins a header and a message into a new buffer before a wrap. Every frame
 * goes this way but the heartbeat's pings, which the pipeline's encoder writes.
 *
 * <p>A frame costs one copy of its bytes into a buffer that serves every frame of the drain. A message a sender
 * channel sends as it was put has its transmission header written here, into the run, before its body
 * ({@link FrameEncoder#addressedOf}): no buffer of its own, the message copied once. Of a message longer than
 * a run only what completes the current run is copied: the run is written whole, then the rest of the message as it
 * is (which a TLS handler wraps in place, record by record).
 *
 * <p>One per link; its event loop's thread only. Every run ends within the drain that began it ({@link #end}), so no
 * bytes wait here between tasks.
 */
final class FrameRuns {

    /** A header buffer that grew past this (a frame with a long payload) is not kept. */
    private static final int HEADER_KEPT_BYTES = 1024;

    private final int runBytes;
    /** Direct runs but for the JDK's TLS engine, which reads heap buffers. */
    private final boolean direct;
    /** Where a frame's header is written before it is copied into the run; reused. */
    private ByteBuf header = Unpooled.buffer(256);
    /** The run being filled, or null. */
    private ByteBuf run;

    FrameRuns(int runBytes, boolean direct) {
        this.runBytes = runBytes;
        this.direct = direct;
    }

    /** A plain socket link's runs: the staging size, direct. */
    static FrameRuns plain() {
        return new FrameRuns(ClientConfiguration.STAGED_BUFFER_BYTES, true);
    }

    /** A TLS link's runs: one record's plaintext each; direct for OpenSSL, on the heap for the JDK's engine. */
    static FrameRuns tls(SslHandler ssl) {
        return new FrameRuns(ClientConfiguration.TLS_RECORD_BYTES, ssl.engine() instanceof ReferenceCountedOpenSslEngine);
    }

    /** The bytes of every run but a drain's last. */
    int runBytes() {
        return runBytes;
    }

    /**
     * Copies {@code frame} into the runs, writing each run as it fills; of a message longer than a run, only what
     * fills the run: the rest is written as it is. Releases the frame's message.
     */
    void write(Channel channel, Frame frame) {
        ByteBuf message = FrameEncoder.messageOf(frame);
        try {
            header.clear();
            try {
                FrameEncoder.writeHeader(frame, header);
            } catch (RuntimeException e) { // as the encoder's failure: the link reports it and closes
                channel.pipeline().fireExceptionCaught(new EncoderException(e));
                return;
            }
            append(channel, header, header.readerIndex(), header.readableBytes());
            if (message == null) {
                return;
            }
            int index = message.readerIndex();
            int length = message.readableBytes();
            TransmissionHeader.Addressed addressed = FrameEncoder.addressedOf(frame);
            if (addressed != null) { // its transmission header written here, then its body copied as any message's
                writeHead(channel, addressed);
                index = addressed.bodyIndex();
                length = addressed.bodyLength();
            }
            int copied = length <= runBytes ? length : run == null ? 0 : runBytes - run.writerIndex();
            append(channel, message, index, copied);
            if (copied < length) { // the run is full and written: the rest goes as it is
                channel.write(message.retainedSlice(index + copied, length - copied), channel.voidPromise());
            }
        } finally {
            if (message != null) {
                message.release();
            }
            if (header.capacity() > HEADER_KEPT_BYTES) {
                header = Unpooled.buffer(256);
            }
        }
    }

    /** Writes the run being filled, if any: the drain ends. */
    void end(Channel channel) {
        if (run != null) {
            ByteBuf full = run;
            run = null;
            channel.write(full, channel.voidPromise());
        }
    }

    /**
     * Writes the transmission header of a message sent as it was put ({@link TransmissionHeader.Addressed#writeHead})
     * straight into the run when the run has room for it, else into the header buffer, whose bytes are then copied
     * into the runs as a frame header's are (a run is written only once full).
     */
    private void writeHead(Channel channel, TransmissionHeader.Addressed addressed) {
        if (run == null) {
            run = newRun(channel);
        }
        if (runBytes - run.writerIndex() >= addressed.headLength()) {
            addressed.writeHead(run);
            if (run.writerIndex() == runBytes) {
                end(channel);
            }
            return;
        }
        header.clear();
        addressed.writeHead(header);
        append(channel, header, header.readerIndex(), header.readableBytes());
    }

    private ByteBuf newRun(Channel channel) {
        return direct ? channel.alloc().directBuffer(runBytes) : channel.alloc().heapBuffer(runBytes);
    }

    private void append(Channel channel, ByteBuf from, int index, int length) {
        while (length > 0) {
            if (run == null) {
                run = newRun(channel);
            }
            int n = Math.min(length, runBytes - run.writerIndex());
            run.writeBytes(from, index, n);
            index += n;
            length -= n;
            if (run.writerIndex() == runBytes) {
                end(channel);
            }
        }
    }
}
