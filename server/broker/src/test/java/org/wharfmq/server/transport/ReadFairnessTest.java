package org.wharfmq.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.Frame;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReadFairnessTest {

    private static final long TURN = 1_000;

    private final AtomicLong clock = new AtomicLong(1);
    /** What each frame costs the handler after the turn, in clock units; the frames it saw, in order. */
    private final Recorder recorder = new Recorder();
    private final EmbeddedChannel channel = new EmbeddedChannel(new ReadFairness(TURN, clock::get), recorder);

    /** Stands for the connection handler: records frames and read-completes, and spends clock time on each frame. */
    private final class Recorder extends ChannelInboundHandlerAdapter {
        long costPerFrame;
        final List<Object> frames = new ArrayList<>();
        int readCompletes;
        int inactives;

        final List<Object> events = new ArrayList<>();

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            inactives++;
            events.add("inactive");
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            frames.add(msg);
            events.add(msg);
            clock.addAndGet(costPerFrame);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            readCompletes++;
        }
    }

    /** One read of the socket that decoded {@code frames}, without running the loop's queued tasks. */
    private void read(Object... frames) {
        for (Object f : frames) {
            channel.pipeline().fireChannelRead(f);
        }
        channel.pipeline().fireChannelReadComplete();
    }

    @Test
    void framesWithinATurnPassStraightThrough() {
        recorder.costPerFrame = 100;
        read("a", "b", "c");
        read("d");

        assertEquals(List.of("a", "b", "c", "d"), recorder.frames);
        assertTrue(channel.config().isAutoRead());
        assertFalse(channel.hasPendingTasks(), "nothing was put off");
    }

    @Test
    void afterATurnTheRestWaitsForTheLoopAndReadingStops() {
        recorder.costPerFrame = 600; // the third frame starts after 1200 > 1000
        read("a", "b", "c", "d");

        assertEquals(List.of("a", "b"), recorder.frames);
        assertFalse(channel.config().isAutoRead(), "a connection that had its turn stops reading");

        recorder.costPerFrame = 1;
        channel.runPendingTasks();

        assertEquals(List.of("a", "b", "c", "d"), recorder.frames);
        assertTrue(channel.config().isAutoRead(), "reading resumes once nothing is held");
        assertEquals(2, recorder.readCompletes, "the held frames end with a read-complete of their own");
    }

    @Test
    void heldFramesAreTakenUpOneTurnAtATimeAndInOrder() {
        recorder.costPerFrame = 1_500; // every frame is longer than a turn
        read("a", "b", "c");
        assertEquals(List.of("a"), recorder.frames);

        read("d"); // arrives while others are held: behind them, even in a new turn
        assertEquals(List.of("a"), recorder.frames);

        channel.runPendingTasks();
        assertEquals(List.of("a", "b", "c", "d"), recorder.frames);
        assertTrue(channel.config().isAutoRead());
        // two reads, then three turns of one frame each, every turn ending with a read-complete
        assertEquals(5, recorder.readCompletes, "each held frame longer than a turn gets a turn of its own");
    }

    @Test
    void framesHeldWhenThePeerGoesAwayAreProcessedBeforeTheCloseIsPassedOn() {
        recorder.costPerFrame = 2_000;
        read("ack 1", "ack 2", "ack 3");
        assertEquals(List.of("ack 1"), recorder.frames);

        // the peer was killed after writing all three; Netty removes the handlers in the task that passes the close
        // on, so the held frames cannot wait for a later turn
        channel.pipeline().fireChannelInactive();
        assertEquals(List.of("ack 1", "ack 2", "ack 3"), recorder.frames, "what the peer sent before it went away counts");
        assertEquals(List.of("ack 1", "ack 2", "ack 3", "inactive"), recorder.events, "processed before the close");

        channel.runPendingTasks(); // the turn queued when the frames were held finds nothing left
        assertEquals(3, recorder.frames.size());
        assertEquals(1, recorder.inactives, "the close is passed on once");
    }

    @Test
    void heldMessagesAreReleasedWhenTheServerClosesForAFailure() {
        recorder.costPerFrame = 2_000;
        ByteBuf first = Unpooled.buffer().writeInt(1);
        ByteBuf held = Unpooled.buffer().writeInt(2);
        read(new Frame.Send(0, 1, 1, first), new Frame.Send(0, 1, 1, held));
        assertEquals(1, recorder.frames.size());

        ProtocolFailures.protocolError(channel.pipeline().firstContext(), "a test's failure");
        channel.runPendingTasks();

        assertEquals(0, held.refCnt(), "a frame that was never processed must not leak its message");
        assertEquals(1, recorder.frames.size(), "nothing is processed after a close for a failure");
        assertEquals(1, recorder.inactives);
        first.release();
    }
}
