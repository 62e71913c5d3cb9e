package org.wharfmq.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The outbound limit on a connection's pipeline as ServerChannelInitializer builds it (the counting flush handler as
 * the channel's size estimator, read fairness, the limit): written bytes the peer has not taken stop its reading past
 * the limit and resume it at half; message bodies weigh nothing; the two handlers that stop reading resume it only
 * when neither holds it. Frames written and not flushed are bytes the peer has not taken (the pipeline's own write:
 * the embedded channel's would run the loop's tasks as well).
 */
class OutboundLimitTest {

    private static final int LIMIT = 64 * 1024;
    private static final long TURN = 1_000;

    private final AtomicLong clock = new AtomicLong(1);
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final OutboundLimit limit = new OutboundLimit(LIMIT);

    OutboundLimitTest() {
        CountingFlushHandler flush = new CountingFlushHandler();
        channel.config().setMessageSizeEstimator(flush);
        channel.config().setWriteBufferWaterMark(OutboundLimit.waterMark(LIMIT));
        channel.pipeline().addLast(flush, new ReadFairness(TURN, clock::get), limit, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                clock.addAndGet(2 * TURN); // every frame takes longer than a turn: the next one is held
            }

            @Override
            public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                readingWhenWritable = ctx.channel().isWritable() ? ctx.channel().config().isAutoRead() : null;
            }
        });
    }

    /**
     * Whether the channel reads right after it turned writable, as the limit left it (the embedded channel runs the
     * loop's tasks after a flush); null when it last turned unwritable.
     */
    private Boolean readingWhenWritable;

    @AfterEach
    void release() {
        channel.finishAndReleaseAll();
    }

    /** An answer of {@code bytes} bytes in all, as the encoder writes it: its length prefix, then the rest. */
    private static ByteBuf answer(int bytes) {
        ByteBuf frame = Unpooled.buffer(bytes);
        frame.writeInt(bytes - Integer.BYTES);
        frame.writeZero(bytes - Integer.BYTES);
        return frame;
    }

    /** The peer takes what was written: a flush past the flush consolidation, which would put it off to a task. */
    private void peerTakesAll() {
        channel.pipeline().firstContext().flush();
    }

    /** Writes 1 KiB answers until the channel is past the limit (each counts its bytes and the buffer's overhead). */
    private void writePastTheLimit() {
        while (channel.isWritable()) {
            channel.pipeline().write(answer(1024));
        }
    }

    @Test
    void readingStopsPastTheLimitAndResumesOnceHalfHasLeft() {
        while (channel.isWritable()) {
            assertTrue(channel.config().isAutoRead(), "not past the limit yet");
            channel.pipeline().write(answer(1024));
        }
        assertFalse(channel.config().isAutoRead(), "past the limit");
        assertTrue(limit.holding());
        long unsent = OutboundLimit.unsentBytes(channel);
        assertTrue(unsent > LIMIT && unsent <= LIMIT + 2 * 1024, () -> unsent + " bytes wait");

        peerTakesAll();
        assertTrue(channel.config().isAutoRead(), "the peer took them");
        assertFalse(limit.holding());
    }

    @Test
    void aMessageBodyWeighsNothing() {
        ByteBuf header = Unpooled.buffer(64);
        header.writeInt(60 + 10 * LIMIT); // the frame's 60 header bytes after the prefix, then its body
        header.writeZero(60);
        channel.pipeline().write(header);
        long afterHeader = OutboundLimit.unsentBytes(channel);
        channel.pipeline().write(Unpooled.wrappedBuffer(new byte[10 * LIMIT]));
        long body = OutboundLimit.unsentBytes(channel) - afterHeader;
        channel.pipeline().write(answer(100));
        long answer = OutboundLimit.unsentBytes(channel) - afterHeader - body;

        assertTrue(channel.config().isAutoRead(), "ten times the limit of message body");
        assertEquals(answer - 100, body, "the body weighs only its buffer's overhead, as the answer does beside its"
                + " bytes");
    }

    @Test
    void readFairnessDoesNotResumeAConnectionHeldForItsAnswers() {
        channel.pipeline().fireChannelRead("a");
        channel.pipeline().fireChannelRead("b"); // after a turn: held, reading stopped
        channel.pipeline().fireChannelReadComplete();
        assertFalse(channel.config().isAutoRead());
        writePastTheLimit();
        assertTrue(limit.holding());

        channel.runPendingTasks(); // fairness takes "b" up, and would read again
        assertFalse(channel.config().isAutoRead(), "still held for its answers");

        peerTakesAll();
        assertTrue(channel.config().isAutoRead(), "neither holds it now");
    }

    @Test
    void theLimitDoesNotResumeAConnectionWhoseFramesWaitTheirTurn() {
        writePastTheLimit();
        channel.pipeline().fireChannelRead("a");
        channel.pipeline().fireChannelRead("b"); // held by fairness
        channel.pipeline().fireChannelReadComplete();

        peerTakesAll(); // writable again: the limit lets go, fairness does not yet; then fairness's task runs
        assertFalse(limit.holding());
        assertEquals(Boolean.FALSE, readingWhenWritable, "b waited its turn");
        assertTrue(channel.config().isAutoRead(), "fairness read again once b had its turn");
    }

    @Test
    void theHeartbeatSparesAHeldConnectionOnlyWhileItsPeerTakesSome() {
        writePastTheLimit();
        assertFalse(limit.peerTakesAnswers(channel), "nothing taken since the hold began");
        channel.pipeline().write(answer(1024)); // a PING, say: more waits, none was taken
        assertFalse(limit.peerTakesAnswers(channel));
    }
}
