package org.wharfmq.client.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.wharfmq.client.core.ClientConfiguration;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameDecoder;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a socket link hands its channel ({@link FrameRuns}): its frames' bytes in buffers of exactly the link kind's run
 * size each (on TLS one record's plaintext, so that each is wrapped as it is, one record, without the handler joining
 * buffers; on a plain socket the staging size), the last of a drain shorter, and of a message longer than a run the
 * rest after a full run as it is; the same bytes, in order, as the frames written one by one; each message's
 * reference let go.
 */
class FrameRunsTest {

    private static final int RECORD = ClientConfiguration.TLS_RECORD_BYTES;

    @Test
    void framesAreCopiedIntoBuffersOfOneRecordEachAndTheRestOfALongMessageFollowsAFullOneAsItIs() {
        // 16_379 and 16_380 bytes of message end a frame exactly at and just past a run's end
        framesAreCopiedIntoRunsOfTheirSize(new FrameRuns(RECORD, true),
                new int[] {2048, 0, 16_379, 16_380, 40_000, 100, RECORD + 1, 7, RECORD, 16_379, 3 * RECORD});
    }

    @Test
    void runsOfAnotherSizeAreCutTheSameWay() {
        // a run of 3000: 2995 and 2996 bytes of message end a frame exactly at and just past a run's end
        framesAreCopiedIntoRunsOfTheirSize(new FrameRuns(3000, true),
                new int[] {2300, 0, 2995, 2996, 40_000, 100, 3001, 7, 3000, 2995, 9000});
    }

    /**
     * A burst of short frames, some without a message, as one drain writes them: as few runs as its bytes need, every
     * one but the last full.
     */
    @Test
    void aBurstOfShortFramesGoesIntoAsFewRunsAsItsBytesNeed() {
        EmbeddedChannel channel = new EmbeddedChannel();
        FrameRuns runs = new FrameRuns(RECORD, true);
        int bytes = 0;
        for (int i = 0; i < 30; i++) {
            runs.write(channel, new Frame.ChannelFastMessage(Unpooled.directBuffer(2300).writeZero(2300)));
            runs.write(channel, new Frame.ChannelFastConfirm(i));
            bytes += FrameDecoder.HEADER_LENGTH + 2300 + FrameDecoder.HEADER_LENGTH + 4;
        }
        runs.end(channel);
        channel.flush();
        int count = 0;
        int read = 0;
        for (ByteBuf b; (b = channel.readOutbound()) != null; count++) {
            read += b.readableBytes();
            b.release();
        }
        assertEquals(bytes, read);
        assertEquals((bytes + RECORD - 1) / RECORD, count, "runs for " + bytes + " bytes");
    }

    /**
     * Messages a sender channel takes as they are put, their transmission headers written as the frames are: into
     * the run where it has room for one, else through the header buffer (a head that straddles a run's end), their
     * bodies after it as any message's (the rest of a long one as it is). The partner reads each as the message wrapped
     * for a transmission queue would be, byte for byte; each message's reference is let go.
     */
    @Test
    void aMessageSentAsPutHasItsTransmissionHeaderWrittenIntoTheRunsAsItsWrappedBytes() {
        FrameRuns runs = new FrameRuns(3000, true);
        EmbeddedChannel channel = new EmbeddedChannel();
        int[] bodies = {2000, 0, 2700, 2850, 2900, 2950, 5000, 100, 9000, 2600};
        List<ByteBuf> originals = new ArrayList<>();
        List<ByteBuf> expected = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            WireMessage m = new WireMessage();
            m.destination = WireDestination.queue("ORDERS.REMOTE");
            m.replyTo = WireDestination.queue("REPLIES." + i);
            m.properties.put("index", i);
            m.body = new byte[bodies[i % bodies.length]];
            for (int j = 0; j < m.body.length; j++) {
                m.body[j] = (byte) (i * 31 + j);
            }
            ByteBuf message = Unpooled.buffer();
            m.encode(message);
            originals.add(message);
            TransmissionHeader.Addressed addressed = TransmissionHeader.address(message.retain(), "QM2", "ORDERS",
                    "QM1");
            expected.add(addressed.wrap(UnpooledByteBufAllocator.DEFAULT, Integer.MAX_VALUE));
            runs.write(channel, new Frame.ChannelFastMessage(addressed));
            runs.write(channel, new Frame.Ok(i));
        }
        runs.end(channel);
        channel.flush();

        EmbeddedChannel decoding = new EmbeddedChannel(new FrameDecoder(Integer.MAX_VALUE));
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            decoding.writeInbound(b);
        }
        for (int i = 0; i < originals.size(); i++) {
            Frame.ChannelFastMessage read = assertInstanceOf(Frame.ChannelFastMessage.class, decoding.readInbound(),
                    "frame " + 2 * i);
            assertTrue(ByteBufUtil.equals(expected.get(i), read.message()), "message " + i + " as wrapped");
            read.message().release();
            expected.get(i).release();
            assertEquals(new Frame.Ok(i), decoding.readInbound(), "frame " + (2 * i + 1));
            assertEquals(1, originals.get(i).refCnt(), "the frame's reference was let go once written");
            originals.get(i).release();
        }
        assertNull(decoding.readInbound(), "nothing more");
        decoding.finishAndReleaseAll();
    }

    private static void framesAreCopiedIntoRunsOfTheirSize(FrameRuns runs, int[] sizes) {
        int runBytes = runs.runBytes();
        EmbeddedChannel channel = new EmbeddedChannel();
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
                    assertEquals(runBytes, b.readableBytes(), "run " + k + " is whole");
                } else {
                    assertTrue(b.readableBytes() <= runBytes, "the last run is at most a run: " + b.readableBytes());
                }
            } else {
                assertTrue(afterFullRun, "the rest of a long message follows a full run");
                assertTrue(b.readableBytes() > 0, "no empty rest");
            }
            afterFullRun = b.isDirect() && b.readableBytes() == runBytes;
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

    @ParameterizedTest
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void aTlsLinksRunsAreOneRecordsPlaintextOnTheHeapForTheJdksEngineDirectForOpenSsl(SslProvider provider)
            throws Exception {
        SslHandler ssl = SslContextBuilder.forClient().sslProvider(provider).build()
                .newHandler(UnpooledByteBufAllocator.DEFAULT);
        try {
            FrameRuns runs = FrameRuns.tls(ssl);
            assertEquals(RECORD, runs.runBytes());
            assertEquals(provider == SslProvider.OPENSSL, firstRunIsDirect(runs), provider + "'s engine");
        } finally {
            ReferenceCountUtil.release(ssl.engine());
        }
    }

    @Test
    void aPlainLinksRunsAreTheStagingSizeAndDirect() {
        FrameRuns runs = FrameRuns.plain();
        assertEquals(ClientConfiguration.STAGED_BUFFER_BYTES, runs.runBytes());
        assertTrue(firstRunIsDirect(runs));
    }

    /** Whether the one run of a drain of one short frame, which holds it whole, is direct. */
    private static boolean firstRunIsDirect(FrameRuns runs) {
        EmbeddedChannel channel = new EmbeddedChannel();
        runs.write(channel, new Frame.ChannelFastMessage(Unpooled.directBuffer(10).writeZero(10)));
        runs.end(channel);
        channel.flush();
        ByteBuf run = channel.readOutbound();
        assertEquals(FrameDecoder.HEADER_LENGTH + 10, run.readableBytes());
        assertNull(channel.readOutbound(), "one run");
        boolean direct = run.isDirect();
        run.release();
        return direct;
    }
}
