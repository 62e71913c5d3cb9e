package org.wharfmq.server.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The in-VM listener ({@code vm://NAME}): each connection it accepts runs on its client's own event loop, so that a
 * frame passes between the client's end and the server's end on one thread. The client's request is handled where it
 * is written and the server's answer or delivery is read where it is written: a request and its answer cost the
 * in-VM client one hand-off to its loop and one back, not a second pair between two loops. That is what a plugin
 * talking to its queue manager (a channel's sender taking its transmission queue, its receiver putting each
 * message) pays per frame.
 *
 * <p>A client's loop must be a single-threaded one, as every local channel's is; the listener's own loop group
 * ({@link #loops}) runs only the listening channel.
 */
public final class InVmListener {

    private InVmListener() {
    }

    /** The event loop group of the listening channel; each accepted connection registers on its client's loop. */
    public static EventLoopGroup loops() {
        return new ClientLoops();
    }

    /** The listening channel's class. */
    public static Class<? extends LocalServerChannel> channelClass() {
        return Listening.class;
    }

    /** The listening channel: makes each accepted connection remember its client's loop. */
    public static final class Listening extends LocalServerChannel {
        @Override
        protected LocalChannel newLocalChannel(LocalChannel peer) {
            return new Accepted(this, peer);
        }
    }

    /** An accepted connection: the server's end of a client's local channel, on that channel's loop. */
    private static final class Accepted extends LocalChannel {
        private final EventLoop clientLoop;

        Accepted(LocalServerChannel parent, LocalChannel peer) {
            super(parent, peer);
            this.clientLoop = peer.eventLoop(); // the client registered its channel before connecting
        }
    }

    /** One thread for the listening channel; an accepted connection goes to its client's loop. */
    private static final class ClientLoops extends DefaultEventLoopGroup {
        ClientLoops() {
            super(1, new DefaultThreadFactory("wharf-vm", true));
        }

        @Override
        public ChannelFuture register(Channel channel) {
            return channel instanceof Accepted accepted ? accepted.clientLoop.register(channel)
                    : super.register(channel);
        }
    }
}
