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
 * Holds each request's body to its route's limit ({@link HttpRoutes#maxRequestBytes}), between {@link CallerCheck}
 * (which lets only the requests of callers who may call their route through with their bodies) and the aggregator,
 * on the event loop: a request whose Content-Length is over the limit, or whose chunks so far are, is
 * ended at once with a {@link TooLarge} failure (the aggregator hands it on as a failed request, which
 * {@link HttpRequestHandler} answers 413, naming the limit and how to raise it), and the rest of its body is read and dropped, never held: closing at once,
 * with the body still arriving, would make the caller's socket reset before it reads the 413. A request over the limit
 * that asked for {@code Expect: 100-continue} is not told to continue.
 */
final class RequestLimit extends ChannelInboundHandlerAdapter {

    /** The failure of a request whose body is over its route's limit: answered 413 with this message. */
    static final class TooLarge extends TooLongFrameException {
        TooLarge(String message) {
            super(message);
        }
    }

    private final HttpRoutes routes;
    /** On the event loop: the current request's limit and description, the body bytes seen, whether it is dropped. */
    private long limit;
    private String method;
    private String path;
    private long seen;
    private boolean dropping;

    RequestLimit(HttpRoutes routes) {
        this.routes = routes;
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
            dropping = false;
            long declared = HttpUtil.getContentLength(head, -1L);
            if (declared > limit) {
                HttpUtil.set100ContinueExpected(head, false);
                ctx.fireChannelRead(head);
                refuse(ctx, "Content-Length " + declared);
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
            seen += content.content().readableBytes();
            if (seen > limit) {
                boolean last = content instanceof LastHttpContent;
                content.release();
                refuse(ctx, "more than that in chunks");
                dropping = !last;
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    /** Ends the current request as failed, over its limit; what follows of its body is dropped. */
    private void refuse(ChannelHandlerContext ctx, String sent) {
        dropping = true;
        LastHttpContent end = new DefaultLastHttpContent();
        end.setDecoderResult(DecoderResult.failure(new TooLarge("Request body too large: " + method + " "
                + path + " takes at most " + limit + " bytes (this request sent " + sent + "). "
                + routes.overLimitFix(method, path))));
        ctx.fireChannelRead(end);
    }
}
