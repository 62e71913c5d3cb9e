package org.wharfmq.protocol.frame;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

class HeartbeatIdleHandlerTest {

    private final AtomicLong clock = new AtomicLong();
    private final List<IdleState> events = new ArrayList<>();
    private final List<ChannelPromise> promises = new ArrayList<>();
    private final EmbeddedChannel channel = new EmbeddedChannel(
            new ChannelOutboundHandlerAdapter() {
                @Override
                public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                    promises.add(promise);
                    ctx.write(msg, promise);
                }
            },
            new HeartbeatIdleHandler(100, clock::get),
            new ChannelInboundHandlerAdapter() {
                @Override
                public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                    IdleState state = ((IdleStateEvent) evt).state();
                    if (state == IdleState.WRITER_IDLE) { // reads are IdleStateHandler's, timed by its own clock
                        events.add(state);
                    }
                }
            });

    private void advanceMillis(long millis) {
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
        channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
    }

    @Test
    void writerIdleComesAnIntervalAfterTheLastFlushAndEveryIntervalWhileNothingIsFlushed() {
        advanceMillis(60);
        channel.flush();
        advanceMillis(60); // 120 ms since the start, 60 since the flush: not idle
        assertEquals(List.of(), events);
        advanceMillis(45); // 105 since the flush
        assertEquals(List.of(IdleState.WRITER_IDLE), events);
        advanceMillis(100);
        assertEquals(List.of(IdleState.WRITER_IDLE, IdleState.WRITER_IDLE), events);
    }

    @Test
    void aWriteKeepsItsVoidPromise() {
        channel.write("frame", channel.voidPromise());
        assertSame(channel.voidPromise(), promises.get(0)); // IdleStateHandler's writer watch made each one a new promise
    }
}
