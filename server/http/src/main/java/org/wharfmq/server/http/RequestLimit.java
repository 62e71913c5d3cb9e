package org.wharfmq.server.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;

/**
 * Holds each request's body to its route's limit ({@link HttpRoutes#maxRequestBytes}), and the bodies being read
 * over all connections to the listener's ({@link InboundBodies}), between {@link CallerCheck} (which lets only the
 * requests of callers who may call their route through with their bodies) and the aggregator, on the event loop: a
 * request whose Content-Length is over its route's limit, or whose chunks so far are, is ended at once with a
 * {@link Refused} failure of status 413; one whose body would take the listener's past
 * {@link HttpConfiguration#MAX_INBOUND_BODY_BYTES} while others are on their way, 503 (the aggregator hands it on
 * as a failed request, which {@link HttpRequestHandler} answers); the rest of its body is read and dropped, never
 * held: closing at once, with the body still arriving, would make the caller's socket reset before it reads the
 * answer. A refused request that asked for {@code Expect: 100-continue} is not told to continue. A body's bytes
 * count against the listener's from its head (its Content-Length, else each chunk as it comes) until it has arrived
 * whole, is refused, or its connection is lost.
 */
final class RequestLimit extends ChannelInboundHandlerAdapter {

    /** The failure of a request whose body is refused: answered {@link #status} with this message. */
    static final class Refused extends TooLongFrameException {
        private final int status;

        Refused(int status, String message) {
            super(message);
            this.status = status;
        }

        /** 413 (over its route's limit) or 503 (the listener reads as many bodies as it may). */
        int status() {
            return status;
        }
    }

    private final HttpRoutes routes;
    private final InboundBodies bodies;
    /**
     * On the event loop: the current request's limit and description, the body bytes seen, the bytes it holds of
     * the listener's ({@link #bodies}), whether its body is declared (Content-Length), whether it is dropped.
     */
    private long limit;
    private String method;
    private String path;
    private long seen;
    private long held;
    private boolean declared;
    private boolean dropping;

    RequestLimit(HttpRoutes routes, InboundBodies bodies) {
        this.routes = routes;
        this.bodies = bodies;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof FullHttpRequest) { // the codec's answer to bytes that are not HTTP: no body, passed on
            ctx.fireChannelRead(msg);
            return;
        }
        if (msg instanceof HttpRequest head) {
            method = head.method().name();
            path = new QueryStringDecoder(head.uri()).path();
            limit = routes.maxRequestBytes(method, path);
            seen = 0;
            giveBack(); // a request before it that never ended (the aggregator refused it itself)
            dropping = false;
            long length = HttpUtil.getContentLength(head, -1L);
            declared = length >= 0;
            if (length > limit) {
                HttpUtil.set100ContinueExpected(head, false);
                ctx.fireChannelRead(head);
                refuse(ctx, tooLarge("Content-Length " + length));
            } else if (length > 0 && !take(length)) {
                HttpUtil.set100ContinueExpected(head, false);
                ctx.fireChannelRead(head);
                refuse(ctx, busy(length));
            } else {
                ctx.fireChannelRead(head);
            }
            return;
        }
        if (msg instanceof HttpContent content) {
            if (dropping) {
                if (content instanceof LastHttpContent) {
                    dropping = false;
                }
                ReferenceCountUtil.release(content);
                return;
            }
            int bytes = content.content().readableBytes();
            seen += bytes;
            Refused refused = seen > limit ? tooLarge("more than that in chunks")
                    : !declared && bytes > 0 && !take(bytes) ? busy(seen) : null;
            if (refused != null) {
                boolean last = content instanceof LastHttpContent;
                content.release();
                refuse(ctx, refused);
                dropping = !last;
                return;
            }
            if (content instanceof LastHttpContent) {
                giveBack(); // arrived whole: its route's bounds hold it from here
            }
        }
        ctx.fireChannelRead(msg);
    }

    /** Takes {@code bytes} of the listener's bodies for the current request; false when they would go past it. */
    private boolean take(long bytes) {
        if (!bodies.take(bytes, held)) {
            return false;
        }
        held += bytes;
        return true;
    }

    /** Gives back what the current request holds of the listener's bodies. */
    private void giveBack() {
        bodies.give(held);
        held = 0;
    }

    private Refused tooLarge(String sent) {
        return new Refused(413, "Request body too large: " + method + " " + path + " takes at most " + limit
                + " bytes (this request sent " + sent + "). " + routes.overLimitFix(method, path));
    }

    private Refused busy(long bytes) {
        return new Refused(503, "The HTTP listener is busy reading request bodies: " + method + " " + path + "'s "
                + bytes
                + " bytes would take the bodies it reads at once past " + bodies.max() + " bytes, its most (setting "
                + "http.maxInboundBodyBytes), while other callers' bodies are on their way. Try again shortly, or "
                + "raise http.maxInboundBodyBytes if the server's memory allows.");
    }

    /** Ends the current request as failed ({@code refused}); what follows of its body is dropped, none of it held. */
    private void refuse(ChannelHandlerContext ctx, Refused refused) {
        giveBack();
        dropping = true;
        LastHttpContent end = new DefaultLastHttpContent();
        end.setDecoderResult(DecoderResult.failure(refused));
        ctx.fireChannelRead(end);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        giveBack(); // the connection is lost with a body on its way
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        giveBack();
    }
}
