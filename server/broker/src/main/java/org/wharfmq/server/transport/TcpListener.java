package org.wharfmq.server.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;

import java.net.BindException;

/**
 * Opens a client listener on a TCP port: the one way the queue manager's listeners and a replica's
 * ({@link StatusListener}) bind, with the same socket options and the same refusal of a port in use.
 */
public final class TcpListener {

    private TcpListener() {
    }

    /**
     * Binds {@code host:port}; {@code setting} names the port's setting in errors ({@code port} or {@code tls.port}).
     *
     * @throws BindException         when the port is taken (naming the port and how to choose another)
     * @throws IllegalStateException when it cannot listen for another reason
     */
    public static Channel bind(NativeTransport transport, EventLoopGroup acceptor, EventLoopGroup io, String host,
                               int port, String setting, ChannelInitializer<Channel> initializer) throws BindException {
        ChannelFuture tcp = new ServerBootstrap()
                .group(acceptor, io)
                .channel(transport.serverChannelClass())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(initializer)
                .bind(host, port)
                .awaitUninterruptibly();
        if (!tcp.isSuccess()) {
            Throwable cause = tcp.cause();
            if (cause instanceof BindException || String.valueOf(cause.getMessage()).contains("in use")) {
                BindException e = new BindException("Port " + port + " on " + host
                        + " is already in use (another Wharf or another program listens there). Stop that program or"
                        + " choose another port (" + (setting.equals("port") ? "--port N, or " : "") + "setting "
                        + setting + ").");
                e.initCause(cause);
                throw e;
            }
            throw new IllegalStateException("Cannot listen on " + host + ":" + port + ": " + cause, cause);
        }
        return tcp.channel();
    }
}
