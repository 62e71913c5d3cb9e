package org.wharfmq.jms.transport;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The event loop groups shared by every Wharf connection in the JVM. Each is created on first use (holder
 * idiom, so a JVM that only uses {@code vm://} never starts NIO threads) and runs on daemon threads, so an
 * application that forgets to close a connection can still exit.
 */
final class EventLoops {
    private EventLoops() {
    }

    /** The NIO group for TCP connections. */
    static EventLoopGroup tcp() {
        return Tcp.GROUP;
    }

    /** The group for in-VM (local channel) connections. */
    static EventLoopGroup inVm() {
        return InVm.GROUP;
    }

    private static final class Tcp {
        static final EventLoopGroup GROUP = new NioEventLoopGroup(0, new DefaultThreadFactory("wharf-client-nio", true));
    }

    private static final class InVm {
        static final EventLoopGroup GROUP = new DefaultEventLoopGroup(0, new DefaultThreadFactory("wharf-client-vm", true));
    }
}
