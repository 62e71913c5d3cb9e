package org.wharfmq.jms.transport;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.wharfmq.protocol.transport.NativeTransport;

/**
 * The event loop groups shared by every Wharf connection in the JVM. Each is created on first use (holder
 * idiom, so a JVM that only uses {@code vm://} never starts TCP threads) and runs on daemon threads, so an
 * application that forgets to close a connection can still exit.
 */
final class EventLoops {

    /**
     * System property with the number of network threads the TCP connections of this JVM share; unset or 0 means
     * one per available processor. Netty's own default is two per processor: on a small machine that makes more
     * of a message's hops cross between threads (docs/performance.md).
     */
    static final String IO_THREADS_PROPERTY = "wharf.client.ioThreads";

    private EventLoops() {
    }

    /** The number of TCP network threads: {@value #IO_THREADS_PROPERTY}, else one per available processor. */
    static int tcpThreads() {
        int configured = Integer.getInteger(IO_THREADS_PROPERTY, 0);
        return configured > 0 ? configured : Runtime.getRuntime().availableProcessors();
    }

    /** The group for TCP connections: epoll where the native library loads, else NIO ({@link NativeTransport}). */
    static EventLoopGroup tcp() {
        return Tcp.GROUP;
    }

    /** The group for in-VM (local channel) connections. */
    static EventLoopGroup inVm() {
        return InVm.GROUP;
    }

    private static final class Tcp {
        static final EventLoopGroup GROUP = NativeTransport.best().eventLoopGroup(tcpThreads(), new DefaultThreadFactory("wharf-client-io", true));
    }

    private static final class InVm {
        static final EventLoopGroup GROUP = new DefaultEventLoopGroup(0, new DefaultThreadFactory("wharf-client-vm", true));
    }
}
