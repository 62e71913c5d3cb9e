package org.wharfmq.client.core.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.Future;
import org.wharfmq.protocol.frame.FrameDecoder;
import org.wharfmq.protocol.frame.FrameEncoder;

import org.wharfmq.client.core.ClientConfiguration;
import org.wharfmq.client.core.ClientException;
import javax.net.ssl.SSLException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;

/**
 * Opens the link to a Wharf server. {@code tcp://} and {@code ssl://} get a {@link SocketLink}, or on a
 * {@link NetworkLoop} a {@link ChannelLink} over a Netty socket channel; {@code vm://} gets a {@link ChannelLink} over
 * a Netty local channel. A {@link ChannelLink}'s pipeline is an {@link SslHandler} for {@code ssl://},
 * {@link FrameDecoder}, {@link FrameEncoder} (on a socket link for the heartbeat's pings alone: its drain copies the
 * other frames into runs, {@link FrameRuns}), an {@link IdleStateHandler} (named {@value #IDLE_HANDLER}; idle until
 * the handshake has agreed a heartbeat interval, then replaced by a
 * {@link org.wharfmq.protocol.frame.HeartbeatIdleHandler}) and the link's inbound handler.
 */
public final class Transport {
    /** Name of the idle-state handler in an in-VM pipeline, for replacing it once the heartbeat is agreed. */
    static final String IDLE_HANDLER = "idle";

    private Transport() {
    }

    /**
     * Connects and returns the open link, which hands what arrives to {@code listener}.
     *
     * @param address              where to connect
     * @param tls                  the TLS settings of an {@code ssl://} address; null otherwise
     * @param listener             told of every frame that arrives and of the link's end
     * @param connectTimeoutMillis how long the connect may take
     * @throws ClientException with a message saying what to check when the server cannot be reached
     */
    public static FrameLink connect(BrokerAddress address, ClientTls tls, FrameListener listener, int connectTimeoutMillis)
            throws ClientException {
        return connect(address, tls, listener, connectTimeoutMillis, null);
    }

    /**
     * Connects as {@link #connect(BrokerAddress, ClientTls, FrameListener, int)}, a {@code tcp://} or {@code ssl://}
     * address on {@code loop} when one is given: a link whose writes never block ({@link NetworkLoop}), its TLS
     * handshake done before it is returned. In-VM addresses ignore {@code loop}.
     */
    public static FrameLink connect(BrokerAddress address, ClientTls tls, FrameListener listener, int connectTimeoutMillis,
                                    NetworkLoop loop) throws ClientException {
        if (loop != null && !address.isInVm()) {
            SslHandler ssl = address.isTls() ? sslHandler(address, tls, connectTimeoutMillis) : null;
            ChannelLink link = new ChannelLink(listener, ssl == null ? FrameRuns.plain() : FrameRuns.tls(ssl));
            Bootstrap bootstrap = new Bootstrap()
                    .group(loop.group())
                    .channel(loop.channelClass())
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.SO_KEEPALIVE, true)
                    .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(
                            ClientConfiguration.LOOP_LINK_WATER_MARK_BYTES / 2, ClientConfiguration.LOOP_LINK_WATER_MARK_BYTES))
                    .handler(pipeline(ssl, link));
            connected(link, bootstrap.connect(address.host(), address.port()), address, connectTimeoutMillis);
            if (ssl != null) {
                handshaken(link, ssl, address, tls, connectTimeoutMillis);
            }
            return link;
        }
        if (!address.isInVm()) {
            try {
                return SocketLink.connect(address.host(), address.port(), address.isTls() ? tls : null, listener,
                        connectTimeoutMillis);
            } catch (SSLException e) {
                throw tlsFailure(address, tls, e);
            } catch (IOException e) {
                throw failure(address, reason(address, e), e);
            }
        }
        ChannelLink link = new ChannelLink(listener, null);
        Bootstrap bootstrap = new Bootstrap()
                .group(EventLoops.inVm())
                .channel(LocalChannel.class)
                .handler(pipeline(null, link));
        // a local connect completes or fails at once; the wait is only for the event loop to run it
        return connected(link, bootstrap.connect(new LocalAddress(address.host())), address, connectTimeoutMillis);
    }

    /**
     * The pipeline of a link over a Netty channel: TLS when {@code ssl} is not null, frames in and out, the idle-state
     * handler, then {@code link}.
     */
    private static ChannelInitializer<Channel> pipeline(SslHandler ssl, ChannelLink link) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                if (ssl != null) {
                    ch.pipeline().addLast("tls", ssl);
                }
                // no frame past the limit is skipped: limit() refuses it first, from the handshake's on
                FrameDecoder decoder = new FrameDecoder(Integer.MAX_VALUE - 16);
                decoder.limit(ClientConfiguration.HANDSHAKE_FRAME_BYTES);
                ch.pipeline().addLast("decoder", decoder);
                ch.pipeline().addLast("encoder", FrameEncoder.INSTANCE);
                ch.pipeline().addLast(IDLE_HANDLER, new IdleStateHandler(0, 0, 0));
                ch.pipeline().addLast("client", link.inbound());
            }
        };
    }

    /** {@code link} once {@code future} connected it, within {@code connectTimeoutMillis}. */
    private static ChannelLink connected(ChannelLink link, ChannelFuture future, BrokerAddress address,
                                        int connectTimeoutMillis) throws ClientException {
        // a TCP connect ends by its own CONNECT_TIMEOUT_MILLIS; the wait's margin lets it say so itself
        if (!future.awaitUninterruptibly(connectTimeoutMillis + (address.isInVm() ? 0L : 1_000L))) {
            future.cancel(false);
            throw failure(address, "no connection within " + connectTimeoutMillis + " ms (connectTimeout)", null);
        }
        if (!future.isSuccess()) {
            throw failure(address, reason(address, future.cause()), future.cause());
        }
        link.connected(future.channel());
        return link;
    }

    /**
     * The TLS handler of an {@code ssl://} link on a loop: the engine of {@code tls} (its trust, protocols, cipher
     * suites and host check, as a blocking link's), its handshake ended after {@code connectTimeoutMillis}.
     */
    private static SslHandler sslHandler(BrokerAddress address, ClientTls tls, int connectTimeoutMillis)
            throws ClientException {
        SslHandler ssl = tls.handler(address.host(), address.port());
        ssl.setHandshakeTimeoutMillis(connectTimeoutMillis);
        return ssl;
    }

    /** Waits for {@code ssl}'s handshake; when it fails, closes {@code link} and says why and what fixes it. */
    private static void handshaken(ChannelLink link, SslHandler ssl, BrokerAddress address, ClientTls tls,
                                   int connectTimeoutMillis) throws ClientException {
        // the handler ends its handshake by its own timeout; the wait's margin lets it say so itself
        Future<Channel> handshake = ssl.handshakeFuture();
        boolean ended = handshake.awaitUninterruptibly(connectTimeoutMillis + 1_000L);
        if (ended && handshake.isSuccess()) {
            return;
        }
        link.close(connectTimeoutMillis);
        if (!ended) {
            throw failure(address, "no TLS handshake within " + connectTimeoutMillis + " ms (connectTimeout)", null);
        }
        Throwable cause = handshake.cause();
        throw tlsFailure(address, tls, cause instanceof IOException io ? io : new SSLException(cause));
    }

    /**
     * The exception for a failed TLS handshake, saying why and what fixes it; also for a TLS connection lost before
     * HELLO was answered, as when a TLS 1.3 server refuses the client's certificate after the client has finished its
     * handshake (with an alert the client may read, or by closing the connection first).
     */
    public static ClientException tlsFailure(BrokerAddress address, ClientTls tls, IOException cause) {
        return new ClientException("Cannot connect to Wharf at " + address + ": "
                + TlsFailures.describe(cause, address.host(), tls), cause);
    }

    private static String reason(BrokerAddress address, Throwable cause) {
        if (address.isInVm()) {
            return "no in-VM Wharf server named '" + address.host() + "' is running in this JVM"
                    + " (start one with WharfServer.start(config) whose inVmName is '" + address.host() + "')";
        }
        if (cause instanceof SocketTimeoutException) {
            return "connection timed out";
        }
        if (cause instanceof UnknownHostException) {
            return "unknown host " + address.host();
        }
        if (cause instanceof ConnectException) {
            String message = cause.getMessage();
            if (message != null && message.contains("Connection refused")) {
                return "Connection refused"; // Netty's says "finishConnect(..) failed: Connection refused: ADDRESS"
            }
            // some platforms append the address ("No route to host: host/1.2.3.4:7414"); the URL already says it
            int colon = message == null ? -1 : message.indexOf(':');
            return message == null ? "Connection refused" : colon > 0 ? message.substring(0, colon) : message;
        }
        return cause == null ? "unknown error" : cause.toString();
    }

    private static ClientException failure(BrokerAddress address, String reason, Throwable cause) {
        String hint = address.isInVm() ? "" : ". Is `bin/wharf server` running?";
        return new ClientException("Cannot connect to Wharf at " + address + ": " + reason + hint, cause);
    }
}
