package org.wharfmq.server.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.auth.Mechanisms;
import org.wharfmq.protocol.auth.ScramException;
import org.wharfmq.protocol.auth.ScramServer;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.security.AuditLog;
import org.wharfmq.server.security.Authenticator;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Logins;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The handshake (docs/protocol.md, "Connection life"): HELLO in protocol version 2 or 3 (answered in its own version:
 * {@link org.wharfmq.protocol.ProtocolVersion#speaks}), answered with the mechanisms this
 * connection may use ({@link OfferedMechanisms}); AUTH with the client's choice; for SCRAM-SHA-256 one
 * AUTH_CHALLENGE / AUTH_RESPONSE round ({@link ScramServer}); for PLAIN the login module's verdict, asked off the event
 * loop; for EXTERNAL the user the verified TLS client certificate is mapped to ({@link TlsPeer}). Success: HELLO_OK
 * with the authenticated user, the agreed heartbeat ({@link HeartbeatHandler} takes over) and what the listener's
 * {@link Admission} makes of the connection: a {@link ServerConnection} holding the connection's {@link Identity} on
 * the active queue manager, a {@link StatusConnection} on a replica (which refuses an application's HELLO at once,
 * ERROR NOT_ACTIVE, before anything else). Failure: ERROR AUTHENTICATION_FAILED saying only
 * that it failed for the user named (an unknown user and a wrong password look the same), a WARNING and an audit
 * line with the reason and the peer address, then close.
 *
 * <p>After repeated failures of the user named from one address, or of many user names from it
 * ({@link org.wharfmq.server.security.LoginThrottle}), the final answer is held back by a scheduled task, never a
 * sleep. The whole exchange, from the accept (so the TLS handshake too) to HELLO_OK, must end within the handshake
 * timeout (setting handshakeTimeoutMillis, default {@link Configuration#HANDSHAKE_TIMEOUT_MILLIS}), however slowly its bytes arrive and however long the login
 * module takes; only an answer already decided and held back by the throttle is still given after it. Before HELLO_OK
 * only handshake frames are accepted, of at most {@link Configuration#HANDSHAKE_MAX_FRAME_LENGTH} bytes (the
 * pipeline's first decoder); at HELLO_OK the decoder is replaced by one with the normal limit
 * ({@link ServerChannelInitializer#handshakeDone}).
 */
final class HandshakeHandler extends ChannelInboundHandlerAdapter {

    private static final System.Logger LOG = System.getLogger(HandshakeHandler.class.getName());

    /**
     * Where the exchange stands: which frame the client may send next; VERIFYING while the login module checks a PLAIN
     * password, ANSWERING once the answer is decided (perhaps held back by the throttle).
     */
    private enum Step { HELLO, AUTH, SCRAM_RESPONSE, VERIFYING, ANSWERING }

    private final Doorway context;
    private final Logins logins;
    private Step step = Step.HELLO;
    private Frame.Hello hello;
    private List<String> offered;
    private String mechanism;
    private String user = "";
    private ScramServer scram;
    private Authenticator.User scramUser;
    /** Who an in-process login ({@link org.wharfmq.server.security.InProcessLogins}) is; null for any other. */
    private Identity inProcessUser;
    private ScheduledFuture<?> deadline;
    /** The verified TLS client certificate's subject (RFC 2253), or null when the client sent none. */
    private String certificateSubject;
    /** Who that certificate logs in as (EXTERNAL), or null when it is mapped to no user. */
    private Identity certificateUser;

    HandshakeHandler(Doorway context) {
        this.context = context;
        this.logins = context.logins();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        deadline = ctx.executor().schedule(() -> timeout(ctx), context.config().handshakeTimeoutMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        deadline.cancel(false);
    }

    /**
     * The deadline: the connection is closed. A client that has said HELLO is first told which limit closed it and
     * what the server was still waiting for (on a starved machine it otherwise sees only a closed or reset connection);
     * a peer that has not (its TLS handshake unfinished, its HELLO incomplete) is not known to speak Wharf and gets
     * nothing, as before.
     */
    private void timeout(ChannelHandlerContext ctx) {
        if (step == Step.ANSWERING || !ctx.channel().isActive()) {
            return;
        }
        String waitingFor = switch (step) {
            case HELLO -> TlsPeer.isHandshaking(ctx.channel()) ? "the TLS handshake had not completed"
                    : "no complete HELLO had arrived";
            case AUTH -> "the client had not sent its AUTH after the server's AUTH_MECHANISMS";
            case SCRAM_RESPONSE -> "the client had not sent its SCRAM proof (AUTH_RESPONSE) for user '" + user + "'";
            case VERIFYING -> "the login module had not answered for user '" + user + "'";
            case ANSWERING -> throw new IllegalStateException("an answer is decided");
        };
        String limit = "within " + context.config().handshakeTimeoutMillis() + " ms of the accept (setting"
                + " handshakeTimeoutMillis of queue manager " + context.config().name() + ")";
        LOG.log(System.Logger.Level.INFO, "Closing connection from " + ctx.channel().remoteAddress()
                + ": the handshake did not complete " + limit + "; " + waitingFor);
        if (step == Step.HELLO) {
            ctx.close();
            return;
        }
        ProtocolFailures.closeWith(ctx, ErrorCode.HANDSHAKE_TIMEOUT, "The handshake did not complete " + limit + ": "
                + waitingFor + (step == Step.VERIFYING ? ". Check the login module (its directory server may be slow"
                + " or unreachable)" : ". A client on a busy machine can take that long (a JVM that has just started"
                + " computes its first SCRAM proof, thousands of PBKDF2 iterations, slowly): connect again, or raise"
                + " handshakeTimeoutMillis in the server's configuration") + ". The connection is closed.");
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (ProtocolFailures.isClosing(ctx)) {
            ProtocolFailures.discard(msg);
            return;
        }
        if (step == Step.HELLO && msg instanceof Frame.Hello h) {
            onHello(ctx, h);
        } else if (step == Step.AUTH && msg instanceof Frame.Auth auth) {
            onAuth(ctx, auth);
        } else if (step == Step.SCRAM_RESPONSE && msg instanceof Frame.AuthResponse response) {
            onScramResponse(ctx, response);
        } else {
            ProtocolFailures.discard(msg);
            ProtocolFailures.protocolError(ctx, expected() + ", not " + ((Frame) msg).type());
        }
    }

    private String expected() {
        return switch (step) {
            case HELLO -> "the first frame must be HELLO";
            case AUTH -> "the handshake expects AUTH after HELLO";
            case SCRAM_RESPONSE -> "the handshake expects AUTH_RESPONSE after AUTH_CHALLENGE";
            case VERIFYING, ANSWERING -> "the client must wait for the answer to its AUTH";
        };
    }

    private void onHello(ChannelHandlerContext ctx, Frame.Hello h) {
        if (!ProtocolVersion.speaks(h.version())) {
            LOG.log(System.Logger.Level.INFO, "Refusing " + ctx.channel().remoteAddress() + " (" + h.clientName()
                    + "): protocol version " + h.version());
            ProtocolFailures.closeWith(ctx, ErrorCode.UNSUPPORTED_VERSION, "Protocol version " + h.version()
                    + " is not supported: this server speaks versions " + ProtocolVersion.OLDEST + " to "
                    + ProtocolVersion.CURRENT + "; upgrade the client to a Wharf client of the server's version.");
            return;
        }
        String refusal = context.admission().refusal(h);
        if (refusal != null) {
            LOG.log(System.Logger.Level.DEBUG, () -> "Refusing " + ctx.channel().remoteAddress() + " ("
                    + h.clientName() + "): " + refusal);
            ProtocolFailures.closeWith(ctx, ErrorCode.NOT_ACTIVE, refusal);
            return;
        }
        hello = h;
        TlsPeer.certificate(ctx.channel()).ifPresent(certificate -> {
            certificateSubject = certificate.getSubjectX500Principal().getName();
            certificateUser = logins.authenticator().certificateUser(certificate.getSubjectX500Principal());
        });
        offered = OfferedMechanisms.of(logins.authenticator(), ctx.channel(), certificateUser != null,
                logins.inProcess().any());
        if (offered.isEmpty()) {
            fail(ctx, "no mechanism is offered to this connection", nothingOffered(ctx));
            return;
        }
        step = Step.AUTH;
        ctx.writeAndFlush(new Frame.AuthMechanisms(offered), ctx.voidPromise());
    }

    /** Why a connection is offered no mechanism, and what to change. */
    private String nothingOffered(ChannelHandlerContext ctx) {
        Authenticator authenticator = logins.authenticator();
        String server = "Queue manager " + context.config().name();
        if (authenticator.anonymousAccess() == Authenticator.AnonymousAccess.LOOPBACK) {
            return server + " has no users configured, so it accepts only local clients (127.0.0.1, ::1); this"
                    + " connection comes from " + peer(ctx) + ". Add users (bin/wharf user add) and connect with a user"
                    + " name and password, or set allowAnonymous: true in the security file.";
        }
        return server + " accepts no anonymous clients and its users log in through a login module (PLAIN), which is"
                + " offered only over TLS: connect with TLS, or add users to its security file (bin/wharf user add).";
    }

    private void onAuth(ChannelHandlerContext ctx, Frame.Auth auth) {
        mechanism = auth.mechanism();
        if (mechanism.equals(Mechanisms.EXTERNAL) && certificateUser == null) {
            // the name asked for (empty: none), for the audit line
            user = new String(auth.data(), java.nio.charset.StandardCharsets.UTF_8);
            String why = describeCertificate(ctx);
            fail(ctx, "EXTERNAL without a mapped client certificate (" + why + ")", "Authentication failed: EXTERNAL"
                    + " (log in by TLS client certificate) is not possible on this connection: " + why + ".");
            return;
        }
        if (!offered.contains(mechanism)) {
            fail(ctx, "mechanism " + mechanism + " is not offered to this connection", "Authentication failed:"
                    + " mechanism '" + mechanism + "' is not offered to this connection (offered: "
                    + String.join(", ", offered) + ").");
            return;
        }
        switch (mechanism) {
            case Mechanisms.ANONYMOUS -> succeed(ctx, OfferedMechanisms.inProcess(ctx.channel()) ? Identity.SERVER
                    : Identity.ANONYMOUS, new byte[0]);
            case Mechanisms.SCRAM_SHA_256 -> onScramFirst(ctx, auth.data());
            case Mechanisms.PLAIN -> onPlain(ctx, auth.data());
            case Mechanisms.EXTERNAL -> onExternal(ctx, auth.data());
            default -> throw new IllegalStateException("offered a mechanism it cannot run: " + mechanism);
        }
    }

    private void onScramFirst(ChannelHandlerContext ctx, byte[] clientFirst) {
        boolean inProcess = OfferedMechanisms.inProcess(ctx.channel());
        scram = new ScramServer(name -> {
            // a plugin acting as a user (InProcessLogins): over the in-VM listener only
            inProcessUser = inProcess ? logins.inProcess().identity(name) : null;
            if (inProcessUser != null) {
                return logins.inProcess().credential(name);
            }
            scramUser = logins.authenticator().user(name);
            return scramUser == null ? null : scramUser.credential();
        }, logins.decoySecret(), logins.authenticator().decoyIterations());
        try {
            byte[] challenge = scram.serverFirst(clientFirst);
            user = scram.user();
            step = Step.SCRAM_RESPONSE;
            ctx.writeAndFlush(new Frame.AuthChallenge(challenge), ctx.voidPromise());
        } catch (ScramException e) {
            fail(ctx, e.getMessage(), null);
        }
    }

    private void onScramResponse(ChannelHandlerContext ctx, Frame.AuthResponse response) {
        try {
            byte[] serverFinal = scram.serverFinal(response.data());
            succeed(ctx, inProcessUser != null ? inProcessUser
                    : new Identity(user, scramUser.groups(), Mechanisms.SCRAM_SHA_256), serverFinal);
        } catch (ScramException e) {
            fail(ctx, e.getMessage(), null);
        }
    }

    /** Why this connection cannot log in by certificate, and the fix. */
    private String describeCertificate(ChannelHandlerContext ctx) {
        if (certificateSubject != null) {
            return "its client certificate's subject '" + certificateSubject + "' is mapped to no user; add it under"
                    + " certificateUsers in the server's security file (\"" + certificateSubject + "\": USER)";
        }
        return TlsPeer.isTls(ctx.channel()) ? "the client sent no certificate (set the URL option keyStore; the server's"
                + " tls.clientAuth must be optional or required)" : "it does not use TLS (connect with ssl:// and a"
                + " client certificate, the URL option keyStore)";
    }

    /**
     * EXTERNAL's message is the authorisation identity, UTF-8: empty to act as the user the certificate is mapped to,
     * else that same user's name; any other name is refused saying whom the certificate is.
     */
    private void onExternal(ChannelHandlerContext ctx, byte[] data) {
        String authzid = new String(data, java.nio.charset.StandardCharsets.UTF_8);
        user = authzid.isEmpty() ? certificateUser.user() : authzid;
        if (!authzid.isEmpty() && !authzid.equals(certificateUser.user())) {
            fail(ctx, "the client certificate '" + certificateSubject + "' is mapped to user '" + certificateUser.user()
                    + "', not '" + authzid + "'", "Authentication failed for user '" + authzid + "': this client's"
                    + " certificate (subject '" + certificateSubject + "') logs in as user '" + certificateUser.user()
                    + "'; connect without a user name or as '" + certificateUser.user() + "' (to log in as '" + authzid
                    + "', give its password).");
            return;
        }
        succeed(ctx, certificateUser, new byte[0]);
    }

    /** PLAIN's message: {@code [authzid] \0 user \0 password}, UTF-8; an authzid other than the user is refused. */
    private void onPlain(ChannelHandlerContext ctx, byte[] data) {
        String message = new String(data, java.nio.charset.StandardCharsets.UTF_8);
        java.util.Arrays.fill(data, (byte) 0);
        int first = message.indexOf('\0');
        int second = first < 0 ? -1 : message.indexOf('\0', first + 1);
        if (second < 0) {
            fail(ctx, "the PLAIN message is not [authzid]\\0user\\0password", null);
            return;
        }
        user = message.substring(first + 1, second);
        String authzid = message.substring(0, first);
        if (!authzid.isEmpty() && !authzid.equals(user)) {
            fail(ctx, "PLAIN asks to act as '" + authzid + "', which is not supported", null);
            return;
        }
        char[] password = message.substring(second + 1).toCharArray();
        step = Step.VERIFYING;
        logins.authenticator().verifyPlain(user, password).whenComplete((identity, error) -> ctx.executor().execute(() -> {
            java.util.Arrays.fill(password, '\0');
            if (!ctx.channel().isActive() || ProtocolFailures.isClosing(ctx)) { // closed, or being closed by the deadline
                return;
            }
            if (error != null) {
                LOG.log(System.Logger.Level.ERROR, "The login module could not check user '" + user + "': " + error, error);
                fail(ctx, "the login module could not be asked: " + error, null);
            } else if (identity == null) {
                fail(ctx, "the login module refused the user name or password", null);
            } else {
                succeed(ctx, identity, new byte[0]);
            }
        }));
    }

    private void succeed(ChannelHandlerContext ctx, Identity identity, byte[] lastMessage) {
        try {
            context.accessControl().admit(identity, ctx.channel().remoteAddress());
            context.admission().check(identity, ctx.channel().remoteAddress());
        } catch (WharfException denied) { // authenticated, but not let in: said to the client, which then closes
            answer(ctx, () -> ProtocolFailures.closeWith(ctx, ErrorCode.NOT_AUTHORISED, denied.getMessage()));
            return;
        }
        Runnable taken;
        try { // the user's quota of connections (security file)
            taken = context.accessControl().quotas().takeConnection(identity, ctx.channel().remoteAddress());
        } catch (WharfException refused) {
            answer(ctx, () -> ProtocolFailures.closeWith(ctx, refused.code(), refused.getMessage()));
            return;
        }
        // given back once: when the connection is released (a CLOSE, before its OK), or when the channel closes first
        AtomicBoolean givenBack = new AtomicBoolean();
        Runnable giveBack = () -> {
            if (givenBack.compareAndSet(false, true)) {
                taken.run();
            }
        };
        ctx.channel().closeFuture().addListener(closed -> giveBack.run());
        answer(ctx, () -> {
            ServerConfig config = context.config();
            int heartbeat = agreedHeartbeat(hello.heartbeatMillis(), config.heartbeatMillis());
            int flags = context.admission().helloOkFlags();
            if (flags == 0 && hello.version() >= ProtocolVersion.CONSUMER_WINDOW_BYTES) {
                // offered on version 3, whose clients read HELLO_OK's flags and ignore a bit they do not know
                flags = Frame.HelloOk.SHARED_DELIVERIES;
            }
            ctx.writeAndFlush(new Frame.HelloOk(hello.version(), config.name(), context.serverVersion(), heartbeat,
                    config.maxMessageLength(), identity.user(), lastMessage, flags,
                    hello.version() >= ProtocolVersion.CONSUMER_WINDOW_BYTES ? config.maxConsumerWindowBytes() : 0),
                    ctx.voidPromise());
            if (heartbeat > 0) {
                ctx.pipeline().addBefore(ctx.name(), "heartbeat", new HeartbeatHandler(heartbeat, hello.clientName()));
            }
            LOG.log(System.Logger.Level.DEBUG, () -> "Client '" + hello.clientName() + "' from "
                    + ctx.channel().remoteAddress() + " authenticated as " + identity.describe() + " (" + mechanism + ")");
            ctx.pipeline().replace(this, "connection", context.admission().connection(hello, identity, giveBack));
            // last: the bytes the handshake's decoder holds (frames sent right behind the AUTH) go to the connection
            ServerChannelInitializer.handshakeDone(ctx.pipeline(), context.admission().maxFrameLength());
        });
    }

    /**
     * Refuses the login: WARNING and audit line with {@code reason}; the client gets {@code clientMessage}, by default
     * "Authentication failed for user 'X'", which never says whether the user exists.
     */
    private void fail(ChannelHandlerContext ctx, String reason, String clientMessage) {
        InetAddress address = address(ctx);
        long delay = address == null ? 0 : logins.throttle().delayMillis(user, address);
        AuditLog.loginFailed(user, ctx.channel().remoteAddress(), mechanism, reason, delay);
        if (address != null) {
            logins.throttle().failed(user, address);
        }
        String message = clientMessage != null ? clientMessage : "Authentication failed for user '" + user + "'.";
        answerAfter(ctx, delay, () -> ProtocolFailures.closeWith(ctx, ErrorCode.AUTHENTICATION_FAILED, message));
    }

    /**
     * Gives the final answer, after the throttle's delay when this user failed too often lately from this address (or
     * the address for too many users).
     */
    private void answer(ChannelHandlerContext ctx, Runnable answer) {
        InetAddress address = address(ctx);
        answerAfter(ctx, address == null ? 0 : logins.throttle().delayMillis(user, address), answer);
    }

    private void answerAfter(ChannelHandlerContext ctx, long delayMillis, Runnable answer) {
        step = Step.ANSWERING;
        if (delayMillis <= 0) {
            answer.run();
        } else {
            ctx.executor().schedule(() -> {
                if (ctx.channel().isActive()) {
                    answer.run();
                }
            }, delayMillis, TimeUnit.MILLISECONDS);
        }
    }

    private static InetAddress address(ChannelHandlerContext ctx) {
        return ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
    }

    private static String peer(ChannelHandlerContext ctx) {
        InetAddress address = address(ctx);
        return address == null ? String.valueOf(ctx.channel().remoteAddress()) : address.getHostAddress();
    }

    /** The smaller non-zero interval of the two; 0 when both sides want none. */
    static int agreedHeartbeat(int client, int server) {
        if (client <= 0) {
            return Math.max(server, 0);
        }
        if (server <= 0) {
            return client;
        }
        return Math.min(client, server);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ProtocolFailures.handle(ctx, cause, false, context.config().maxMessageLength());
    }
}
