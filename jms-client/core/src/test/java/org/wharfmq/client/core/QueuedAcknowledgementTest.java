package org.wharfmq.client.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameDecoder;
import org.wharfmq.protocol.frame.FrameEncoder;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A consumer's AUTO_ACKNOWLEDGE acknowledgements joining the one ACK frame that waits for a write: the frame carries
 * the last one that joined before it was encoded, and none joins once it is (that one needs a frame of its own).
 */
class QueuedAcknowledgementTest {
    private static final ConnectedLink LINK = new ConnectedLink(1, null, null, "QM1", 1024, null, 0, false);

    @Test
    void laterAcknowledgementsJoinTheFrameUntilItIsEncoded() {
        QueuedAcknowledgement queued = new QueuedAcknowledgement(LINK, 7, 1);
        assertTrue(queued.advance(2));
        assertTrue(queued.advance(3));

        Frame.Ack read = encodedAndRead(new Frame.Ack(0, 5, queued));
        assertEquals(List.of(new Frame.Consumed(7, 3)), read.consumed(), "the frame says how far the consumer got");
        assertFalse(queued.advance(4), "an acknowledgement joined a frame already written");
        assertEquals(new Frame.Consumed(7, 3), queued.get(0), "what was written changed after the write");
    }

    @Test
    void aFrameEncodedBeforeAnyJoinCarriesTheFirst() {
        QueuedAcknowledgement queued = new QueuedAcknowledgement(LINK, 2, 41);
        assertEquals(List.of(new Frame.Consumed(2, 41)), encodedAndRead(new Frame.Ack(0, 9, queued)).consumed());
        assertFalse(queued.advance(42));
    }

    private static Frame.Ack encodedAndRead(Frame.Ack ack) {
        ByteBuf bytes = Unpooled.buffer();
        try {
            FrameEncoder.writeHeader(ack, bytes);
            int length = bytes.readInt();
            assertEquals(bytes.readableBytes(), length);
            return (Frame.Ack) FrameDecoder.decodeFrame(bytes);
        } finally {
            bytes.release();
        }
    }
}
