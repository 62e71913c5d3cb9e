package org.wharfmq.client.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.ClientConfiguration;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameDecoder;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a TLS link hands its TLS handler ({@link RecordRuns}): its frames' bytes in buffers of exactly one record's
 * plaintext each (so that each is wrapped as it is, one record, without the handler joining buffers), the last of a
 * drain shorter, and of a message longer than a record the rest after a full run as it is; the same bytes, in order,
 * as the frames written one by one; each message's reference let go.
 */
class RecordRunsTest {

    private static final int RECORD = ClientConfiguration.TLS_RECORD_BYTES;

    @Test
    void framesAreCopiedIntoBuffersOfOneRecordEachAndTheRestOfALongMessageFollowsAFullOneAsItIs() {
        EmbeddedChannel channel = new EmbeddedChannel();
        RecordRuns runs = new RecordRuns(true);
        // 16_379 and 16_380 bytes of message end a frame exactly at and just past a run's end
        int[] sizes = {2048, 0, 16_379, 16_380, 40_000, 100, RECORD + 1, 7, RECORD, 16_379, 3 * RECORD};
        List<ByteBuf> messages = new ArrayList<>();
        for (int i = 0; i < 44; i++) {
            int size = sizes[i % sizes.length];
            ByteBuf message = Unpooled.buffer(size); // on the heap: the runs are direct, so the two are told apart
            for (int j = 0; j < size; j++) {
                message.writeByte(i * 31 + j);
            }
            messages.add(message);
            runs.write(channel, new Frame.ChannelFastMessage(message.retainedDuplicate()));
            runs.write(channel, new Frame.Ok(i));
        }
        runs.end(channel);
        channel.flush();

        ByteBuf written = Unpooled.buffer();
        List<ByteBuf> out = new ArrayList<>();
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            out.add(b);
        }
        boolean afterFullRun = false;
        for (int k = 0; k < out.size(); k++) {
            ByteBuf b = out.get(k);
            if (b.isDirect()) {
                if (k < out.size() - 1) {
                    assertEquals(RECORD, b.readableBytes(), "run " + k + " is one whole record");
                } else {
                    assertTrue(b.readableBytes() <= RECORD, "the last run is at most a record: " + b.readableBytes());
                }
            } else {
                assertTrue(afterFullRun, "the rest of a long message follows a full run");
                assertTrue(b.readableBytes() > 0, "no empty rest");
            }
            afterFullRun = b.isDirect() && b.readableBytes() == RECORD;
            written.writeBytes(b);
            b.release();
        }

        EmbeddedChannel decoding = new EmbeddedChannel(new FrameDecoder(Integer.MAX_VALUE));
        decoding.writeInbound(written);
        for (int i = 0; i < messages.size(); i++) {
            Frame.ChannelFastMessage read = assertInstanceOf(Frame.ChannelFastMessage.class, decoding.readInbound(),
                    "frame " + 2 * i);
            assertTrue(ByteBufUtil.equals(messages.get(i), read.message()), "message " + i + " intact");
            read.message().release();
            assertEquals(new Frame.Ok(i), decoding.readInbound(), "frame " + (2 * i + 1));
            assertEquals(1, messages.get(i).refCnt(), "the frame's reference was let go once written");
            messages.get(i).release();
        }
        assertNull(decoding.readInbound(), "nothing more");
        decoding.finishAndReleaseAll();
    }

    @Test
    void runsForTheJdksEngineAreOnTheHeap() {
        EmbeddedChannel channel = new EmbeddedChannel();
        RecordRuns runs = new RecordRuns(false);
        runs.write(channel, new Frame.ChannelFastMessage(Unpooled.directBuffer(10).writeZero(10)));
        runs.end(channel);
        channel.flush();
        ByteBuf run = channel.readOutbound();
        assertTrue(!run.isDirect() && run.readableBytes() == FrameDecoder.HEADER_LENGTH + 10, run.toString());
        run.release();
    }
}
