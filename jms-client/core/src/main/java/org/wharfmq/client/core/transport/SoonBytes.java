package org.wharfmq.client.core.transport;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameEncoder;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The message bytes that frames written with {@link FrameLink#writeSoon} hold back, about: a link writes a frame at
 * once when it would take them past {@link org.wharfmq.client.core.ClientConfiguration#SOON_LIMIT_BYTES}, and clears the count when it sends the
 * waiting frames. About, because a frame counted while the link clears may be counted for the next batch too.
 */
final class SoonBytes {

    private final AtomicLong bytes = new AtomicLong();

    /** Counts {@code frame}'s message; true when the frames held back would then exceed the limit. */
    boolean overLimitWith(Frame frame) {
        ByteBuf message = FrameEncoder.messageOf(frame);
        return message != null && bytes.addAndGet(message.readableBytes()) > org.wharfmq.client.core.ClientConfiguration.SOON_LIMIT_BYTES;
    }

    /** The waiting frames are being sent: called before they are taken, so none is left uncounted. */
    void sending() {
        bytes.set(0);
    }
}
