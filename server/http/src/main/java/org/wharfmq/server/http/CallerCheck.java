package org.wharfmq.server.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Permission;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Decides whether a request may be served from its head alone, before a byte of its body is read: matches its route
 * and, when it has one, logs the caller in ({@link HttpLogins}), lets it in as the wire's handshake would
 * ({@link AccessControl#admit}: the {@code connect} permission) and checks the route's permission, on a worker thread
 * (a password costs a few ms of PBKDF2) while the connection reads nothing more. A caller let in has its request
 * passed on, body and all, to the route's limit ({@link RequestLimit}) and the answer ({@link HttpRequestHandler},
 * which takes who it is from {@link #take}). A caller refused has its request passed on without its body, failed
 * with {@link Refused}, so that it is answered 401 or 403 in its turn, and the connection then reads and drops
 * whatever still arrives until it closes: a caller who cannot log in makes the listener hold no body. A request with
 * no route is passed on without its body (it is answered 404 or 405, which its body cannot change), and no login.
 *
 * <p>Between the HTTP codec and {@link RequestLimit}, on the connection's event loop: every method but the worker's
 * {@link #decide} runs there. What the codec still takes out of bytes read while a login runs waits here, in order.
 */
final class CallerCheck extends ChannelInboundHandlerAdapter {

    /** A caller refused: its request is answered with {@link #status} and the message, then the connection closes. */
    static final class Refused extends Exception {
        private final int status;
        private final long delayMillis;

        Refused(int status, String message, long delayMillis) {
            super(message, null, false, false);
            this.status = status;
            this.delayMillis = delayMillis;
        }

        int status() {
            return status;
        }

        /** How long the answer waits: the login throttle's delay for the caller's user and address. */
        long delayMillis() {
            return delayMillis;
        }
    }

    /**
     * A request let through: its route (none: answered 404 or 405), who sent it (null without a route) and the login
     * throttle's delay for its answer; known by its head's headers, which the aggregated request shares.
     */
    record Checked(HttpHeaders headers, HttpRoutes.Match match, Identity who, long delayMillis) {
    }

    private final HttpRoutes routes;
    private final HttpLogins logins;
    private final AccessControl accessControl;
    private final Executor workers;
    private final ReadHolds holds;
    private ChannelHandlerContext ctx;
    /** Requests let through and not yet answered, in order. */
    private final ArrayDeque<Checked> checked = new ArrayDeque<>();
    /** What arrived while a login ran, in order: taken up once it is decided. */
    private final ArrayDeque<Object> held = new ArrayDeque<>();
    /** Whether a login runs for the request at the head of {@link #held}. */
    private boolean deciding;
    /** Whether the current request's body is dropped (it has no route). */
    private boolean droppingBody;
    /** Whether a caller was refused: everything that still arrives is dropped; the connection is closing. */
    private boolean refused;

    CallerCheck(HttpRoutes routes, HttpLogins logins, AccessControl accessControl, Executor workers, ReadHolds holds) {
        this.routes = routes;
        this.logins = logins;
        this.accessControl = accessControl;
        this.workers = workers;
        this.holds = holds;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (refused) {
            ReferenceCountUtil.release(msg);
        } else if (deciding) {
            held.add(msg);
        } else {
            pass(msg);
        }
    }

    private void pass(Object msg) {
        if (droppingBody && msg instanceof HttpContent content) {
            droppingBody = !(content instanceof LastHttpContent);
            content.release();
        } else if (msg instanceof HttpRequest head && !(msg instanceof FullHttpRequest)
                && head.decoderResult().isSuccess()) {
            start(head);
        } else {
            ctx.fireChannelRead(msg); // the body of a request let in, or one the codec could not read (400, no login)
        }
    }

    /** A request's head: passed on at once without a route, else once its caller is decided. */
    private void start(HttpRequest head) {
        String path = new QueryStringDecoder(head.uri()).path();
        HttpRoutes.Match match = routes.match(head.method().name(), path);
        if (match.route() == null) {
            checked.add(new Checked(head.headers(), match, null, 0));
            withoutBody(head);
            ctx.fireChannelRead(head);
            ctx.fireChannelRead(LastHttpContent.EMPTY_LAST_CONTENT);
            droppingBody = true; // until the codec's own last content
            return;
        }
        deciding = true;
        holds.hold();
        String authorization = head.headers().get(HttpHeaderNames.AUTHORIZATION);
        Channel channel = ctx.channel();
        try {
            workers.execute(() -> {
                try {
                    Checked caller = decide(authorization, channel, head.headers(), match, path);
                    channel.eventLoop().execute(() -> let(head, caller));
                } catch (Refused no) {
                    channel.eventLoop().execute(() -> refuse(head, no));
                }
            });
        } catch (RejectedExecutionException e) {
            refuse(head, new Refused(503, "The HTTP listener is busy: too many requests wait for it. Try again"
                    + " shortly.", 0));
        }
    }

    /** On a worker: who the caller is, and whether it may call the route; else why not. */
    private Checked decide(String authorization, Channel channel, HttpHeaders headers, HttpRoutes.Match match,
                           String path) throws Refused {
        HttpLogins.Outcome login = logins.login(authorization, headers.get(HttpHeaderNames.HOST), channel);
        long delay = login.delayMillis();
        if (login.who() == null) {
            throw new Refused(login.status(), login.refusal(), delay);
        }
        Identity who = login.who();
        try {
            accessControl.admit(who, channel.remoteAddress()); // as the wire's handshake: no connect, no HTTP either
        } catch (WharfException no) {
            throw new Refused(who.anonymous() ? 401 : 403, no.getMessage() + (who.anonymous()
                    ? " Log in (HTTP Basic) as a user who may connect." : ""), delay);
        }
        HttpRoutes.Route route = match.route();
        String on = route.permission().scope() == Permission.Scope.PATH ? path : null;
        if (!accessControl.allows(who, route.permission(), on)) {
            String denial;
            try {
                accessControl.check(who, route.permission(), on, channel.remoteAddress()); // audits, says why
                denial = "denied";
            } catch (WharfException e) {
                denial = e.getMessage();
            }
            // an anonymous caller may log in as a user who has the permission: ask for it
            throw new Refused(who.anonymous() ? 401 : 403, denial + (who.anonymous()
                    ? " Log in (HTTP Basic) as a user who has it." : ""), delay);
        }
        return new Checked(headers, match, who, delay);
    }

    /** The caller may: its request goes on, body and all, and what waited behind it is taken up. */
    private void let(HttpRequest head, Checked caller) {
        if (!ctx.channel().isActive() || ctx.isRemoved()) {
            return; // closed meanwhile: what waited is released with the handler
        }
        checked.add(caller);
        ctx.fireChannelRead(head);
        deciding = false;
        Object next;
        while (!deciding && !refused && (next = held.poll()) != null) {
            pass(next);
        }
        holds.release();
    }

    /** The caller may not: its request goes on without its body, failed, and the connection drops what follows. */
    private void refuse(HttpRequest head, Refused no) {
        if (!ctx.channel().isActive() || ctx.isRemoved()) {
            return;
        }
        refused = true;
        deciding = false;
        releaseHeld();
        withoutBody(head);
        head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.fireChannelRead(head);
        LastHttpContent end = new DefaultLastHttpContent();
        end.setDecoderResult(DecoderResult.failure(no));
        ctx.fireChannelRead(end);
        holds.drain();
    }

    /** A head passed on without its body: no length the aggregator would check, no 100 Continue to send. */
    private static void withoutBody(HttpRequest head) {
        head.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
        head.headers().remove(HttpHeaderNames.TRANSFER_ENCODING);
        HttpUtil.set100ContinueExpected(head, false);
    }

    /**
     * The caller of the request whose headers are {@code headers}, as decided from its head; requests before it that
     * never reached the answer (one the aggregator refused itself) are forgotten. Null when it was never decided here.
     */
    Checked take(HttpHeaders headers) {
        Checked next;
        while ((next = checked.poll()) != null) {
            if (next.headers() == headers) {
                return next;
            }
        }
        return null;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releaseHeld();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseHeld();
    }

    private void releaseHeld() {
        Object msg;
        while ((msg = held.poll()) != null) {
            ReferenceCountUtil.release(msg);
        }
    }
}
