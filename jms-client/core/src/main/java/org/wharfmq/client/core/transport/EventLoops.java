package org.wharfmq.client.core.transport;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.wharfmq.client.core.ClientConfiguration;

/**
 * The event loop group every in-VM ({@code vm://}) connection of the JVM shares, of
 * {@value ClientConfiguration#IN_VM_LOOPS} thread(s) (why: {@link ClientConfiguration#IN_VM_LOOPS}). Created on first
 * use (holder idiom, so a JVM that only uses {@code tcp://} never starts it) and run on daemon threads, so an
 * application that forgets to close a connection can still exit.
 */
final class EventLoops {

    private EventLoops() {
    }

    /** The group for in-VM (local channel) connections. */
    static EventLoopGroup inVm() {
        return InVm.GROUP;
    }

    private static final class InVm {
        static final EventLoopGroup GROUP = new DefaultEventLoopGroup(ClientConfiguration.IN_VM_LOOPS,
                new DefaultThreadFactory("wharf-client-vm", true));
    }
}
