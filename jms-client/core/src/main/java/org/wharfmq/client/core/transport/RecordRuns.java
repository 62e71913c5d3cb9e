package org.wharfmq.client.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.EncoderException;
import org.wharfmq.client.core.ClientConfiguration;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameEncoder;

/**
 * How a TLS link on a {@link NetworkLoop} writes its frames: their bytes, header and message together, copied into
 * runs of exactly {@value ClientConfiguration#TLS_RECORD_BYTES} bytes (the most one TLS record carries), the last
 * run of a drain shorter. The {@link io.netty.handler.ssl.SslHandler} then wraps each run as it is, one record per run.
 * Every frame goes this way but the pings of the heartbeat, which the pipeline's encoder writes.
 *
 * <p>Why: written as {@link FrameEncoder} writes them (a small header buffer, then the message buffer), a frame is two
 * buffers, which the handler's queue joins before each wrap into a new buffer, copying both: an allocation and two
 * copies per record on top of the encoder's own header buffer, list and two pipeline writes per frame. Here a frame
 * costs one copy of its bytes into a buffer that serves every frame of the drain, as a blocking link's staging buffer
 * does. Of a message longer than a record only what completes the run is copied: the run is written whole, then the
 * rest of the message as it is, which the handler wraps in place, record by record.
 *
 * <p>One per link; its event loop's thread only. Every run ends within the drain that began it ({@link #end}), so no
 * bytes wait here between tasks.
 */
final class RecordRuns {

    private static final int RECORD_BYTES = ClientConfiguration.TLS_RECORD_BYTES;
    /** A header buffer that grew past this (a frame with a long payload) is not kept. */
    private static final int HEADER_KEPT_BYTES = 1024;

    /** Direct runs for an engine that reads native memory (OpenSSL), heap runs for the JDK's. */
    private final boolean direct;
    /** Where a frame's header is written before it is copied into the run; reused. */
    private ByteBuf header = Unpooled.buffer(256);
    /** The run being filled, or null. */
    private ByteBuf run;

    /** @param direct whether the engine wants direct buffers (OpenSSL) rather than heap ones (the JDK's) */
    RecordRuns(boolean direct) {
        this.direct = direct;
    }

    /**
     * Copies {@code frame} into the runs, writing each run as it fills; of a message longer than a record, only what
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
            int length = message.readableBytes();
            int copied = length <= RECORD_BYTES ? length : run == null ? 0 : RECORD_BYTES - run.writerIndex();
            append(channel, message, message.readerIndex(), copied);
            if (copied < length) { // the run is full and written: the handler wraps the rest in place
                channel.write(message.retainedSlice(message.readerIndex() + copied, length - copied),
                        channel.voidPromise());
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

    private void append(Channel channel, ByteBuf from, int index, int length) {
        while (length > 0) {
            if (run == null) {
                run = direct ? channel.alloc().directBuffer(RECORD_BYTES) : channel.alloc().heapBuffer(RECORD_BYTES);
            }
            int n = Math.min(length, RECORD_BYTES - run.writerIndex());
            run.writeBytes(from, index, n);
            index += n;
            length -= n;
            if (run.writerIndex() == RECORD_BYTES) {
                end(channel);
            }
        }
    }
}
