package org.wharfmq.jms.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.handler.timeout.IdleStateHandler;
import org.wharfmq.protocol.frame.FrameDecoder;
import org.wharfmq.protocol.frame.FrameEncoder;
import org.wharfmq.protocol.transport.NativeTransport;

import javax.jms.JMSException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;

/**
 * Opens the Netty channel to a Wharf server. Both transports build the same pipeline: {@link FrameDecoder},
 * {@link FrameEncoder}, an {@link IdleStateHandler} (named {@value #IDLE_HANDLER}; idle until the handshake has
 * agreed a heartbeat interval, then replaced) and the caller's handler.
 */
public final class Transport {
    /** Name of the idle-state handler in the pipeline, for replacing it once the heartbeat is agreed. */
    public static final String IDLE_HANDLER = "idle";

    /**
     * The client accepts any frame the server sends: the server enforces the message size limit on what it
     * stores, so a delivery can never be larger than that limit plus the frame header.
     */
    private static final int MAX_INBOUND_FRAME = Integer.MAX_VALUE - 16;

    private Transport() {
    }

    /**
     * Connects and returns the active channel.
     *
     * @param address         where to connect
     * @param handler         the last handler of the pipeline; a new instance per channel
     * @param connectTimeoutMillis how long the TCP connect may take
     * @throws JMSException with a message saying what to check when the server cannot be reached
     */
    public static Channel connect(BrokerAddress address, ChannelHandler handler, int connectTimeoutMillis) throws JMSException {
        Bootstrap bootstrap = new Bootstrap()
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast("decoder", new FrameDecoder(MAX_INBOUND_FRAME));
                        ch.pipeline().addLast("encoder", FrameEncoder.INSTANCE);
                        ch.pipeline().addLast(IDLE_HANDLER, new IdleStateHandler(0, 0, 0));
                        ch.pipeline().addLast("client", handler);
                    }
                });
        SocketAddress remote;
        if (address.isInVm()) {
            bootstrap.group(EventLoops.inVm()).channel(LocalChannel.class);
            remote = new LocalAddress(address.host());
        } else {
            bootstrap.group(EventLoops.tcp()).channel(NativeTransport.best().socketChannelClass())
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.SO_KEEPALIVE, true);
            remote = InetSocketAddress.createUnresolved(address.host(), address.port());
        }
        ChannelFuture future = bootstrap.connect(remote);
        boolean interrupted = false;
        try {
            // the connect timeout option bounds the wait; the slack covers scheduling
            while (true) {
                try {
                    if (!future.await(connectTimeoutMillis + 1000L)) {
                        future.cancel(false);
                        throw failure(address, "no connection within " + connectTimeoutMillis + " ms (connectTimeout)", null);
                    }
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        if (!future.isSuccess()) {
            throw failure(address, reason(address, future.cause()), future.cause());
        }
        return future.channel();
    }

    private static String reason(BrokerAddress address, Throwable cause) {
        if (address.isInVm()) {
            return "no in-VM Wharf server named '" + address.host() + "' is running in this JVM"
                    + " (start one with WharfServer.start(config) whose inVmName is '" + address.host() + "')";
        }
        if (cause instanceof ConnectTimeoutException) {
            return "connection timed out";
        }
        if (cause instanceof UnknownHostException) {
            return "unknown host " + address.host();
        }
        if (cause instanceof ConnectException) {
            String message = cause.getMessage();
            if (message != null && message.contains("Connection refused")) {
                // epoll says "finishConnect(..) failed with error(-111): Connection refused: ..."
                return "Connection refused";
            }
            // Netty appends the address ("No route to host: host/1.2.3.4:7414"); the URL already says it
            int colon = message == null ? -1 : message.indexOf(':');
            return message == null ? "Connection refused" : colon > 0 ? message.substring(0, colon) : message;
        }
        return cause == null ? "unknown error" : cause.toString();
    }

    private static JMSException failure(BrokerAddress address, String reason, Throwable cause) {
        String hint = address.isInVm() ? "" : ". Is `bin/wharf server` running?";
        JMSException e = new JMSException("Cannot connect to Wharf at " + address + ": " + reason + hint);
        if (cause instanceof Exception ex) {
            e.setLinkedException(ex);
        }
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }
}
