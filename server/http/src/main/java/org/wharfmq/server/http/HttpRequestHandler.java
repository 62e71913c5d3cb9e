package org.wharfmq.server.http;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleStateEvent;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Permission;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Answers one HTTP connection's requests, one at a time and in order (the connection stops reading while a request
 * runs, requests already read wait their turn, so answers go out in order and one connection cannot fill the
 * workers' queue): takes who sent each from {@link CallerCheck}, which logged the caller in and checked the route's
 * permission before the body was read (or refused it, answered here in its turn), runs the route's handler on a
 * worker thread, and writes the answer back (after the login throttle's delay, when the caller's user failed too
 * often lately from its address).
 */
final class HttpRequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final System.Logger LOG = System.getLogger(HttpRequestHandler.class.getName());
    /**
     * The pages' Content-Security-Policy, on every answer: scripts, styles, images and requests from this listener
     * only, no inline script or style, no plugins, never inside another site's frame. What a message or a queue name
     * holds cannot run as script even if a page wrote it as HTML by mistake.
     */
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
    /**
     * The policy of what a path served for callers answers ({@link Permission#CALL}: a message flow's HTTP Input
     * node): the pages' policy, and a sandbox, so that a flow's reply, whose bytes a caller may have chosen, opens in
     * an origin of its own in a browser: no script of it runs, and nothing in it acts as the console's origin.
     */
    static final String CALLED_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY + "; sandbox";

    /**
     * Headers only the listener sets: an answer's own headers ({@link HttpAnswer#headers()}) cannot replace them. The
     * security headers among them hold on every path, a flow's included, since the flows' paths share the console's
     * origin (the HTTP Reply node refuses a reply that names one, so that its flow learns why).
     */
    private static final Set<String> LISTENER_HEADERS = Set.of("content-length", "connection", "transfer-encoding",
            "content-type", "www-authenticate", "content-security-policy", "x-frame-options", "x-content-type-options",
            "referrer-policy", "cache-control");

    private final CallerCheck callers;
    private final ReadHolds holds;
    private final Executor workers;
    private final String realm;
    /** Whether a request is being answered; on the event loop. */
    private boolean busy;
    /** Requests read while one was being answered (HTTP/1.1 pipelining), in order; on the event loop. */
    private final ArrayDeque<FullHttpRequest> waiting = new ArrayDeque<>();

    HttpRequestHandler(CallerCheck callers, ReadHolds holds, Executor workers, String serverName) {
        this.callers = callers;
        this.holds = holds;
        this.workers = workers;
        this.realm = "Basic realm=\"Wharf " + serverName.replace("\"", "") + "\", charset=\"UTF-8\"";
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (busy) { // pipelined behind one still running: answered after it, in order
            waiting.add(request.retain());
            return;
        }
        serve(ctx.channel(), request);
    }

    /** Starts answering {@code request}: its route was matched and its caller decided on its head; runs on a worker. */
    private void serve(Channel channel, FullHttpRequest request) {
        if (!busy) {
            busy = true;
            holds.hold(); // read more once the requests read so far are answered
        }
        DecoderResult decoded = request.decoderResult();
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (decoded.isFailure() && decoded.cause() instanceof CallerCheck.Refused refused) {
            // its body was never read: the connection drops what still comes, and closes once the caller has this
            answer(channel, HttpAnswer.refusal(refused.status(), refused.getMessage()), After.LINGER,
                    refused.delayMillis(), null);
            return;
        }
        if (decoded.isFailure() && decoded.cause() instanceof RequestLimit.Refused limited) {
            // the connection stays usable: RequestLimit drops the rest of the body
            answer(channel, HttpAnswer.refusal(limited.status(), limited.getMessage()), After.of(keepAlive), 0, null);
            return;
        }
        if (decoded.isFailure()) {
            badRequest(channel, decoded.cause());
            return;
        }
        CallerCheck.Checked caller = callers.take(request.headers());
        if (caller == null) { // every request that reads whole passes CallerCheck: a bug
            LOG.log(System.Logger.Level.ERROR, "HTTP " + request.method() + " " + request.uri() + " from "
                    + channel.remoteAddress() + " reached its answer without its caller checked; refused");
            answer(channel, HttpAnswer.refusal(500, "The server failed to check who sent this request (the server"
                    + " log has the details)."), After.CLOSE, 0, null);
            return;
        }
        QueryStringDecoder uri = new QueryStringDecoder(request.uri());
        String method = request.method().name();
        HttpRoutes.Match match = caller.match();
        if (match.route() == null) {
            if (match.allowed().isEmpty()) {
                answer(channel, HttpAnswer.refusal(404, "No resource at '" + uri.path() + "' on this HTTP "
                        + "listener (docs/operations.md lists what it serves)."), After.of(keepAlive), 0, null);
            } else {
                answer(channel, HttpAnswer.refusal(405, "'" + uri.path() + "' answers " + String.join(", ",
                        match.allowed()) + ", not " + method + "."), After.of(keepAlive), 0,
                        String.join(", ", match.allowed()));
            }
            return;
        }
        Map<String, String> headers = new HashMap<>();
        request.headers().forEach(h -> headers.put(h.getKey().toLowerCase(Locale.ROOT), h.getValue()));
        byte[] body = ByteBufUtil.getBytes(request.content());
        try {
            workers.execute(() -> run(channel, match.route(), method, uri, headers, body, keepAlive, caller));
        } catch (RejectedExecutionException e) {
            answer(channel, HttpAnswer.refusal(503, "The HTTP listener is busy: too many requests wait for it. "
                    + "Try again shortly."), After.CLOSE, 0, null);
        }
    }

    /** On the event loop, once an answer is written on a kept-alive connection: the next request, or read more. */
    private void next(Channel channel) {
        FullHttpRequest request = waiting.poll();
        if (request == null) {
            busy = false;
            holds.release();
            return;
        }
        try {
            serve(channel, request);
        } finally {
            request.release();
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        waiting.forEach(FullHttpRequest::release);
        waiting.clear();
    }

    /** On a worker: the route's handler, then the answer. */
    private void run(Channel channel, HttpRoutes.Route route, String method, QueryStringDecoder uri,
                     Map<String, String> headers, byte[] body, boolean keepAlive, CallerCheck.Checked caller) {
        Identity who = caller.who();
        CompletionStage<HttpAnswer> answer;
        try {
            answer = route.handler().handle(new HttpCall(method, uri.path(), uri.parameters(), headers, body, who,
                    channel.remoteAddress()));
        } catch (Exception e) {
            answer = CompletableFuture.completedFuture(failure(route, method, e));
        }
        String policy = route.permission() == Permission.CALL ? CALLED_CONTENT_SECURITY_POLICY
                : CONTENT_SECURITY_POLICY;
        answer.whenComplete((done, e) -> answer(channel, e == null ? done : failure(route, method,
                e instanceof CompletionException && e.getCause() != null ? e.getCause() : e), After.of(keepAlive),
                caller.delayMillis(), null, policy));
    }

    private static HttpAnswer failure(HttpRoutes.Route route, String method, Throwable e) {
        if (e instanceof HttpRefusal r) {
            return HttpAnswer.refusal(r.status(), r.getMessage());
        }
        if (e instanceof IllegalArgumentException) {
            return HttpAnswer.refusal(400, e.getMessage());
        }
        if (e instanceof NoSuchElementException
                || (e instanceof WharfException w && w.code() == ErrorCode.UNKNOWN_DESTINATION)) {
            return HttpAnswer.refusal(404, e.getMessage());
        }
        if (e instanceof WharfException || e instanceof IllegalStateException) {
            return HttpAnswer.refusal(409, e.getMessage());
        }
        LOG.log(System.Logger.Level.ERROR, "HTTP " + method + " " + route.path() + " failed: " + e, e);
        return HttpAnswer.refusal(500, "The server failed to answer " + method + " " + route.path() + ": "
                + e.getClass().getSimpleName() + " (the server log has the details).");
    }

    /** A request Netty's decoder could not read: said, and the connection closed (its bytes cannot be trusted). */
    private void badRequest(Channel channel, Throwable cause) {
        int status = cause instanceof TooLongHttpLineException ? 414
                : cause instanceof TooLongHttpHeaderException ? 431 : 400;
        String why = cause instanceof TooLongFrameException ? cause.getMessage() : "it is not HTTP/1.1 (" + cause + ")";
        answer(channel, HttpAnswer.refusal(status, "Bad request: " + why + "."), After.CLOSE, 0, null);
    }

    /** What becomes of a connection once an answer is written. */
    private enum After {
        /** It reads the next request (keep-alive). */
        NEXT,
        /** It closes. */
        CLOSE,
        /**
         * It closes once the caller has the answer: its sending side ends at once (the caller reads the answer and
         * the end), and it reads and drops what the caller still sends until the caller closes, or for
         * {@link HttpConfiguration#REFUSED_LINGER_MILLIS} at most. Closing at once, with a body still arriving, would
         * make the caller's socket reset before it reads the answer.
         */
        LINGER;

        static After of(boolean keepAlive) {
            return keepAlive ? NEXT : CLOSE;
        }
    }

    /**
     * Writes an answer, after {@code delayMillis}, then reads the next request, closes, or lingers ({@code after}).
     *
     * @param allow the methods of a 405's {@code Allow} header, else null
     */
    private void answer(Channel channel, HttpAnswer answer, After after, long delayMillis, String allow) {
        answer(channel, answer, after, delayMillis, allow, CONTENT_SECURITY_POLICY);
    }

    /** As {@link #answer(Channel, HttpAnswer, After, long, String)}, with {@code policy} its Content-Security-Policy. */
    private void answer(Channel channel, HttpAnswer answer, After after, long delayMillis, String allow,
                        String policy) {
        if (delayMillis > 0) {
            channel.eventLoop().schedule(() -> answer(channel, answer, after, 0, allow, policy), delayMillis,
                    TimeUnit.MILLISECONDS);
            return;
        }
        boolean keepAlive = after == After.NEXT;
        FullHttpResponse response;
        try {
            response = response(answer, keepAlive, allow, realm, policy);
        } catch (IllegalArgumentException e) { // a header Netty will not write (a CR or LF in a value): not hang
            LOG.log(System.Logger.Level.ERROR, "HTTP answer " + answer.status() + " to " + channel.remoteAddress()
                    + " not written: " + e.getMessage());
            response = response(HttpAnswer.refusal(500, "The server could not write its answer (the server log has"
                    + " why)."), keepAlive, null, realm);
        }
        ChannelFuture written = channel.writeAndFlush(response);
        switch (after) {
            case NEXT -> written.addListener((ChannelFutureListener) f -> {
                if (f.isSuccess()) {
                    next(f.channel());
                } else {
                    f.channel().close();
                }
            });
            case CLOSE -> written.addListener(ChannelFutureListener.CLOSE);
            case LINGER -> written.addListener((ChannelFutureListener) f -> {
                if (f.isSuccess() && f.channel() instanceof DuplexChannel duplex) {
                    duplex.shutdownOutput();
                    f.channel().eventLoop().schedule(() -> f.channel().close(),
                            HttpConfiguration.REFUSED_LINGER_MILLIS, TimeUnit.MILLISECONDS);
                } else {
                    f.channel().close();
                }
            });
        }
    }

    /**
     * The response that carries {@code answer}.
     *
     * @param allow the methods of a 405's {@code Allow} header, else null
     * @param realm the {@code WWW-Authenticate} challenge of a 401
     */
    static FullHttpResponse response(HttpAnswer answer, boolean keepAlive, String allow, String realm) {
        return response(answer, keepAlive, allow, realm, CONTENT_SECURITY_POLICY);
    }

    /** As {@link #response(HttpAnswer, boolean, String, String)}, with {@code policy} its Content-Security-Policy. */
    static FullHttpResponse response(HttpAnswer answer, boolean keepAlive, String allow, String realm,
                                     String policy) {
        oneLine("Content-Type", answer.contentType());
        answer.headers().forEach(HttpRequestHandler::oneLine);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(answer.status()), Unpooled.wrappedBuffer(answer.body()));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, answer.contentType())
                .setInt(HttpHeaderNames.CONTENT_LENGTH, answer.body().length)
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE)
                .set("X-Content-Type-Options", "nosniff")
                .set("Content-Security-Policy", policy)
                .set("X-Frame-Options", "DENY")
                .set("Referrer-Policy", "no-referrer")
                .set(HttpHeaderNames.CONNECTION, keepAlive ? HttpHeaderValues.KEEP_ALIVE : HttpHeaderValues.CLOSE);
        answer.headers().forEach((name, value) -> {
            if (!LISTENER_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                response.headers().set(name, value);
            }
        });
        if (answer.status() == 401) {
            response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, realm);
        }
        if (allow != null) {
            response.headers().set(HttpHeaderNames.ALLOW, allow);
        }
        return response;
    }

    /**
     * Refuses a header value that is not one line of text: a CR or LF would end the header and start others of the
     * value's making (whatever Netty's own checks, which change between its versions).
     *
     * @throws IllegalArgumentException naming the header and the character
     */
    private static void oneLine(String name, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 && c != '\t' || c == 0x7f) {
                throw new IllegalArgumentException("the value of header '" + name + "' holds the control character "
                        + String.format("U+%04X", (int) c) + " at position " + (i + 1));
            }
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof IdleStateEvent) {
            ctx.close(); // keep-alive connections idle for HttpConfiguration.IDLE_TIMEOUT_MILLIS
        } else {
            ctx.fireUserEventTriggered(event);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.log(System.Logger.Level.DEBUG, () -> "HTTP connection from " + ctx.channel().remoteAddress()
                + " closed: " + cause);
        ctx.close();
    }
}
