package org.wharfmq.server.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.util.ArrayDeque;
import java.util.function.LongSupplier;

/**
 * Keeps one connection from holding its event loop: once the frames of one read have taken longer than a turn
 * ({@link org.wharfmq.server.Configuration#READ_TURN_NANOS}), the rest wait here, the connection stops reading,
 * and a task at the back of the loop's queue takes them up again, one turn at a time, after the loop has served its
 * other connections and timers. Reading resumes once none is left.
 *
 * <p>Why: a frame can be a lot of work. A publication to a thousand subscribers is a thousand deliveries, and a
 * burst of two thousand such publications arrives in one read; processed in one go on two starved cores that took
 * longer than thirty seconds, during which every other connection of the loop went unread (their receive queues
 * grew by the same bytes) and unpinged, and the heartbeats of both sides declared healthy connections dead. The
 * work is the same either way; what changes is that no connection waits more than a turn of each busy one.
 *
 * <p>Frames keep their order: once any is held, later ones queue behind it, including those the decoder still
 * takes out of bytes already read. A peer that goes away while frames are held has still sent them: they are
 * processed at once, before the close is passed on (its acknowledgements count: a client killed after acknowledging
 * must not get those messages again); at most one read's frames are held, as reading stopped when the first was.
 * Not later, in turns: Netty removes the handlers in the same task that passes the close on. Only a connection the
 * server closes for a failure drops them.
 * Owned by the connection's event loop; every method runs there.
 *
 * <p>{@link OutboundLimit} stops reading too, while the peer does not take what is written for it: reading resumes
 * when neither holds it.
 *
 * <p>(Not to be confused with the JMS client's read turn, which says which application thread reads a socket.)
 */
final class ReadFairness extends ChannelInboundHandlerAdapter {

    private final long turnNanos;
    private final LongSupplier clock;
    private final ArrayDeque<Object> held = new ArrayDeque<>();
    /** Whether frames are being processed now, since {@link #turnStart} (by {@link #clock}). */
    private boolean inTurn;
    private long turnStart;
    private ChannelHandlerContext ctx;
    private final Runnable resume = this::resume;

    /** @param turnNanos the longest a turn lasts; {@code clock} gives the time in ns (System::nanoTime) */
    ReadFairness(long turnNanos, LongSupplier clock) {
        this.turnNanos = turnNanos;
        this.clock = clock;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!held.isEmpty()) {
            held.add(msg);
            return;
        }
        long now = clock.getAsLong();
        if (!inTurn) {
            inTurn = true;
            turnStart = now;
        } else if (now - turnStart > turnNanos) {
            held.add(msg);
            ctx.channel().config().setAutoRead(false);
            ctx.executor().execute(resume);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (held.isEmpty()) {
            inTurn = false;
        }
        ctx.fireChannelReadComplete();
    }

    /** Processes held frames for one turn; schedules another if some are left, else reads again. */
    private void resume() {
        if (held.isEmpty()) {
            return; // taken up by the close, or released
        }
        if (ProtocolFailures.isClosing(ctx)) {
            releaseHeld(); // closed for a failure: later frames are dropped unprocessed
            return;
        }
        inTurn = true;
        turnStart = clock.getAsLong();
        Object msg;
        while ((msg = held.poll()) != null) {
            ctx.fireChannelRead(msg);
            if (!held.isEmpty() && clock.getAsLong() - turnStart > turnNanos) {
                ctx.fireChannelReadComplete();
                ctx.executor().execute(resume);
                return;
            }
        }
        inTurn = false;
        ctx.fireChannelReadComplete();
        if (!ProtocolFailures.isClosing(ctx) && ctx.channel().isWritable()) { // else OutboundLimit resumes it
            ctx.channel().config().setAutoRead(true);
        }
    }

    /** Whether frames wait here for the loop's next turn (reading is stopped meanwhile). */
    boolean holding() {
        return !held.isEmpty();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (ProtocolFailures.isClosing(ctx)) {
            releaseHeld();
        } else if (!held.isEmpty()) {
            Object msg;
            while ((msg = held.poll()) != null) {
                ctx.fireChannelRead(msg);
            }
            inTurn = false;
            ctx.fireChannelReadComplete();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseHeld();
    }

    private void releaseHeld() {
        Object msg;
        while ((msg = held.poll()) != null) {
            ProtocolFailures.discard(msg);
        }
    }
}
