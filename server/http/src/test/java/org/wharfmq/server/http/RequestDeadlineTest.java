package org.wharfmq.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP listener's request deadline on the listener's own codec and aggregator, in a Netty channel whose clock
 * the test moves: a request has 1 s from its first byte here, and 1 s more per 1000 bytes it brings. A request dribbled
 * slower (slowloris) is answered 408 and closed, however often a byte comes; a whole request ends its deadline; a
 * large body at a fair rate is taken whole.
 */
class RequestDeadlineTest {

    private EmbeddedChannel channel;

    @BeforeEach
    void open() {
        RequestDeadline deadline = new RequestDeadline(1_000, 1_000);
        channel = new EmbeddedChannel(deadline, new HttpServerCodec(), deadline.end(),
                new HttpObjectAggregator(1 << 20));
        channel.freezeTime();
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    private void send(String text) {
        channel.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
    }

    private void after(long millis) {
        channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
    }

    @Test
    void aRequestDribbledSlowerThanItsDeadlineIsAnswered408AndClosed() {
        String head = "GET /flows/echo HTTP/1.1\r\n"; // 26 bytes: 26 ms more
        send(head);
        after(900);
        send("X-Slow: 1\r\n"); // 11 bytes: 11 ms more; a header line every 900 ms keeps no idle timer from firing
        after(100); // at 1 s: its 37 bytes have earned 37 ms more
        after(36);
        assertTrue(channel.isOpen(), "closed before its time");
        assertNull(channel.readOutbound());
        after(1);
        assertFalse(channel.isOpen(), "a request dribbled past its deadline keeps its connection");
        ByteBuf answer = channel.readOutbound();
        String text = answer.toString(StandardCharsets.UTF_8);
        answer.release();
        assertTrue(text.startsWith("HTTP/1.1 408 Request Timeout\r\n"), text);
        assertTrue(text.contains("Connection: close\r\n"), text);
        assertTrue(text.endsWith("\r\n\r\nThe request did not arrive whole in time: a request has 1 s from its first"
                + " byte, and 1 s more for each 1000 bytes it brings (this one brought 37 bytes in 1 s). The"
                + " connection is closed; send each request whole, at once.\n"), text);
    }

    @Test
    void aWholeRequestEndsItsDeadline() {
        send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        FullHttpRequest request = channel.readInbound();
        assertEquals("/metrics", request.uri());
        request.release();
        after(10_000);
        assertTrue(channel.isOpen());
        assertNull(channel.readOutbound());
    }

    @Test
    void aLargeBodyAtAFairRateIsTakenWhole() {
        String chunk = "x".repeat(1_000);
        send("POST /flows/upload HTTP/1.1\r\nContent-Length: 3000\r\n\r\n" + chunk);
        after(900);
        send(chunk);
        after(900);
        send(chunk); // at 1.8 s: past the first second, within the 1 s + 3 s its bytes earned
        FullHttpRequest request = channel.readInbound();
        assertEquals(3_000, request.content().readableBytes());
        request.release();
        after(10_000);
        assertTrue(channel.isOpen());
        assertNull(channel.readOutbound());
    }
}
