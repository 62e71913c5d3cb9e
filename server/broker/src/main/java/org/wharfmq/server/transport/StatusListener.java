package org.wharfmq.server.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.WharfVersion;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.config.TlsConfig;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Logins;
import org.wharfmq.server.security.Permission;

import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A replica's client listeners, while it follows (docs/resilience.md, "A member's own status"): the ports of its
 * configuration ({@code port}, {@code tls.port}), where the active instance will listen, open for one thing. An
 * application's HELLO is refused at once, before authentication, with ERROR NOT_ACTIVE (so its address list goes on
 * to the next member, as when nothing listened; nothing about the group is revealed); a HELLO that asks for a status
 * session ({@link Frame.Hello#STATUS_SESSION}, {@code wharf admin}) goes through the queue manager's own handshake
 * (SCRAM and the other mechanisms, the login throttle, the handshake deadline, the connection limits, the connect
 * permission) and needs the {@code monitor} permission before HELLO_OK; the session then runs the read-only admin
 * commands alone ({@link StatusConnection}). Closed, with every connection it accepted, before the member takes over,
 * so the queue manager's listeners open on the same ports.
 */
public final class StatusListener implements AutoCloseable {

    private static final long CLOSE_SECONDS = 10;

    private final EventLoopGroup group;
    private final ChannelGroup connections;
    private final List<Channel> listeners = new ArrayList<>();

    private StatusListener(EventLoopGroup group, ChannelGroup connections) {
        this.group = group;
        this.connections = connections;
    }

    /**
     * Opens the listeners of {@code config} for a replica whose status is {@code status}.
     *
     * @throws java.net.BindException when a port is taken
     */
    public static StatusListener open(ServerConfig config, Logins logins, AccessControl access, ReplicaStatus status)
            throws Exception {
        NativeTransport transport = NativeTransport.best();
        EventLoopGroup group = transport.eventLoopGroup(1, new DefaultThreadFactory("wharf-replica-status", true));
        ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
        StatusListener listener = new StatusListener(group, connections);
        try {
            Doorway doorway = new Doorway(config, logins, access, WharfVersion.current(), connections,
                    new ConnectionLimits(config), new ReplicaAdmission(config, access, status));
            if (config.plainListener()) {
                listener.listeners.add(TcpListener.bind(transport, group, group, config.host(), config.port(), "port",
                        new ServerChannelInitializer(doorway, null)));
            }
            if (config.tls().isPresent()) {
                TlsConfig tls = config.tls().get();
                SslContext sslContext = ServerTls.serverContext(tls);
                listener.listeners.add(TcpListener.bind(transport, group, group, config.host(), tls.port(),
                        "tls.port", new ServerChannelInitializer(doorway, sslContext)));
            }
        } catch (Exception | Error e) {
            listener.close();
            throw e;
        }
        return listener;
    }

    /** The local port of the first listener (the plain one when there is one), for tests; -1 when none. */
    public int port() {
        return listeners.isEmpty() ? -1 : ((java.net.InetSocketAddress) listeners.get(0).localAddress()).getPort();
    }

    /** Stops listening and closes every connection accepted, then the event loop; waits for both. */
    @Override
    public void close() {
        for (Channel listener : listeners) {
            listener.close().awaitUninterruptibly();
        }
        connections.close().awaitUninterruptibly(CLOSE_SECONDS, TimeUnit.SECONDS);
        group.shutdownGracefully(0, CLOSE_SECONDS, TimeUnit.SECONDS).awaitUninterruptibly(2 * CLOSE_SECONDS,
                TimeUnit.SECONDS);
    }

    /** A replica's {@link Admission}: status sessions for monitors, nothing for applications. */
    private record ReplicaAdmission(ServerConfig config, AccessControl access, ReplicaStatus status)
            implements Admission {

        @Override
        public String refusal(Frame.Hello hello) {
            if (hello.wantsStatusSession()) {
                return null;
            }
            return "This member of queue manager " + config.name() + " is a replica of a replicated queue manager: it"
                    + " serves no applications until it is elected active. Give the client every member's address"
                    + " (tcp://HOST1:PORT,tcp://HOST2:PORT,tcp://HOST3:PORT): it goes on to the next one and finds the"
                    + " active member.";
        }

        @Override
        public void check(Identity who, SocketAddress peer) {
            access.check(who, Permission.MONITOR, null, peer); // refused and audited, naming the grant, before HELLO_OK
        }

        @Override
        public int helloOkFlags() {
            return Frame.HelloOk.STATUS_SESSION;
        }

        @Override
        public ChannelHandler connection(Frame.Hello hello, Identity identity, Runnable giveBack) {
            return new StatusConnection(config.name(), access, identity, status, giveBack,
                    config.maxMessageLength());
        }

        @Override
        public int maxFrameLength() {
            return config.maxMessageLength() + org.wharfmq.server.Configuration.FRAME_OVERHEAD_ALLOWANCE;
        }
    }
}
