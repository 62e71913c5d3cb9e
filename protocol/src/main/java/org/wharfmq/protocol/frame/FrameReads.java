package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * The read buffers of a TCP connection. Where its bytes go unchanged to its {@link FrameDecoder} (plain TCP,
 * {@link #FrameReads(RecvByteBufAllocator)}): while a large frame is read into its own buffer, the socket is read
 * straight into that buffer's free end ({@link FrameDecoder#readTarget}), so the frame's bytes are not copied out of
 * read buffers, and a read takes all the socket holds, up to the frame's end. Otherwise, and always under TLS
 * ({@link #underTls}), whose records are decrypted into other buffers (a record read into the frame's buffer would be
 * overwritten by the plain text), the channel's own allocator serves (Netty's adaptive one, 64 bytes to 64 KiB), at
 * least {@link #readAtLeast} bytes a read once the connection is known to carry a stream of messages.
 *
 * <p>One per channel: on plain TCP it knows that channel's decoder, which registers itself ({@link #decoder}). Used on
 * the channel's event loop only.
 */
public final class FrameReads implements RecvByteBufAllocator {

    private final RecvByteBufAllocator general;
    /** Whether the bytes read are the frames' bytes (no TLS), so a large frame's may be read in place. */
    private final boolean framesInPlace;
    /** The channel's decoder now (replaced at the handshake), or null. */
    private FrameDecoder decoder;
    /** The least a read takes from now on ({@link #readAtLeast}); 0: what the general allocator guesses. */
    private int leastBytes;

    /** Reads into large frames' buffers, otherwise as {@code general} (the channel's allocator until now). */
    public FrameReads(RecvByteBufAllocator general) {
        this(general, true);
    }

    private FrameReads(RecvByteBufAllocator general, boolean framesInPlace) {
        this.general = general;
        this.framesInPlace = framesInPlace;
    }

    /** The reads of a TLS connection: as {@code general} (the channel's allocator until now), above the floor. */
    public static FrameReads underTls(RecvByteBufAllocator general) {
        return new FrameReads(general, false);
    }

    /** Whether a large frame's bytes are read straight into its buffer: the connection has no TLS. */
    public boolean framesInPlace() {
        return framesInPlace;
    }

    /** {@code decoder} is the channel's decoder from now on. */
    void decoder(FrameDecoder decoder) {
        this.decoder = decoder;
    }

    /**
     * Every read from now on offers the socket at least {@code bytes} (more when the general allocator guesses more):
     * for a connection that carries a stream of messages, so that a burst of them comes in one read rather than in
     * several of the general allocator's smaller guess.
     */
    public void readAtLeast(int bytes) {
        this.leastBytes = bytes;
    }

    /** {@code decoder} has left the channel (unless another has taken its place already). */
    void decoderGone(FrameDecoder decoder) {
        if (this.decoder == decoder) {
            this.decoder = null;
        }
    }

    @Override
    @SuppressWarnings("deprecation") // Handle, which ExtendedHandle extends
    public Handle newHandle() {
        return new ReadHandle((ExtendedHandle) general.newHandle());
    }

    /** The general handle in all but where a read goes. */
    @SuppressWarnings("deprecation") // Handle's methods, which ExtendedHandle inherits
    private final class ReadHandle implements ExtendedHandle {

        private final ExtendedHandle general;

        ReadHandle(ExtendedHandle general) {
            this.general = general;
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            FrameDecoder frames = decoder;
            ByteBuf target = frames == null ? null : frames.readTarget();
            if (target != null) {
                return target;
            }
            int least = leastBytes;
            return least > general.guess() ? alloc.ioBuffer(least) : general.allocate(alloc);
        }

        @Override
        public int guess() {
            return general.guess();
        }

        @Override
        public void reset(ChannelConfig config) {
            general.reset(config);
        }

        @Override
        public void incMessagesRead(int numMessages) {
            general.incMessagesRead(numMessages);
        }

        @Override
        public void lastBytesRead(int bytes) {
            general.lastBytesRead(bytes);
        }

        @Override
        public int lastBytesRead() {
            return general.lastBytesRead();
        }

        @Override
        public void attemptedBytesRead(int bytes) {
            general.attemptedBytesRead(bytes);
        }

        @Override
        public int attemptedBytesRead() {
            return general.attemptedBytesRead();
        }

        @Override
        public boolean continueReading() {
            return general.continueReading();
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return general.continueReading(maybeMoreDataSupplier);
        }

        @Override
        public void readComplete() {
            general.readComplete();
        }
    }
}
