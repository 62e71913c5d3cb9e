package org.wharfmq.server.transport;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.util.concurrent.ThreadFactory;

/**
 * The TCP transport of the server's listener and connections: Linux epoll when the native library loads (less CPU
 * per message than NIO's selector), Java NIO otherwise.
 */
public enum NativeTransport {
    /** Linux epoll (netty-transport-native-epoll). */
    EPOLL,
    /** Java NIO, available everywhere. */
    NIO;

    /** Epoll if available on this machine, else NIO. */
    public static NativeTransport best() {
        return Epoll.isAvailable() ? EPOLL : NIO;
    }

    /** An event loop group of this transport with {@code threads} threads. */
    public EventLoopGroup eventLoopGroup(int threads, ThreadFactory threadFactory) {
        return this == EPOLL ? new EpollEventLoopGroup(threads, threadFactory) : new NioEventLoopGroup(threads, threadFactory);
    }

    /** The listening socket class of this transport. */
    public Class<? extends ServerChannel> serverChannelClass() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /** The (client) socket channel class that may be registered on {@code loop}, one of the server's network loops. */
    public static Class<? extends Channel> socketChannelClass(EventLoop loop) {
        return loop.parent() instanceof EpollEventLoopGroup ? EpollSocketChannel.class : NioSocketChannel.class;
    }
}
