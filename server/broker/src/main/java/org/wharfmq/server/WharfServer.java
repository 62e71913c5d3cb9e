package org.wharfmq.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.LargeFrameMemory;
import org.wharfmq.protocol.frame.SpareFrameBuffers;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.config.TlsConfig;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import org.wharfmq.server.management.BrokerManagement;
import org.wharfmq.server.management.Management;
import org.wharfmq.server.management.ReplicationState;
import org.wharfmq.server.topic.QueueEventPublisher;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.transport.OpenConnections;
import org.wharfmq.server.transport.ServerTls;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.security.Authenticator;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Logins;
import org.wharfmq.server.session.InProcessProducer;
import org.wharfmq.server.session.InProcessTakes;
import org.wharfmq.server.session.XaBranches;
import org.wharfmq.server.topic.TopicManager;
import org.wharfmq.server.store.JournalMessageStore;
import org.wharfmq.server.store.MessageStore;
import org.wharfmq.server.store.QueueDefinitionFile;
import org.wharfmq.server.transport.NativeTransport;
import org.wharfmq.server.transport.ConnectionLimits;
import org.wharfmq.server.transport.ServerChannelInitializer;
import org.wharfmq.server.transport.TcpListener;
import org.wharfmq.server.transport.InVmListener;
import org.wharfmq.server.transport.LeakDetection;
import org.wharfmq.server.transport.ServerContext;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A running Wharf queue manager: a TCP listener (epoll when available, NIO otherwise) and an in-VM listener
 * ({@code vm://NAME}, Netty local channels), both feeding the same pipeline, in front of one {@link QueueManager}.
 *
 * <h2>From socket to consumer</h2>
 * {@link ServerChannelInitializer} builds each connection's pipeline; {@code HandshakeHandler} answers HELLO;
 * {@code ServerConnection} dispatches frames to {@link org.wharfmq.server.session.BrokerSession}s; a SEND goes
 * to its {@link org.wharfmq.server.queue.LocalQueue}, which hands it to a waiting
 * {@link org.wharfmq.server.session.ServerConsumer} or keeps it; the consumer's session writes the DELIVER.
 *
 * <h2>Threading model</h2>
 * <ul>
 *   <li>All work runs on Netty event loop threads; there are no worker pools and no hand-off beyond the one that
 *       cannot be avoided: a message put on one connection's loop and delivered to a consumer on another loop is
 *       written by a task on the consumer's loop.</li>
 *   <li>A connection's state (its sessions, consumers, open transactions) is owned by its channel's event loop and
 *       touched by no other thread.</li>
 *   <li>Each queue has its own short lock, held for in-memory work only (never across I/O or a store call that
 *       waits). Consumer credit is guarded by the consumer's queue lock.</li>
 *   <li>Each session has a small lock guarding its unacknowledged deliveries and the DELIVER frames waiting to be
 *       written. Lock order: queue, then session; never the reverse, and never two queues at once.</li>
 *   <li>Message bodies are not copied on their way to a consumer: the stored message keeps the retained slice of the
 *       SEND frame, and each DELIVER carries a {@code retainedDuplicate()} of it. Only a message that waits is
 *       copied, once, into a right-sized buffer ({@link org.wharfmq.server.queue.CompactionArena}), so that it does not
 *       keep the larger buffer it arrived in alive.</li>
 *   <li>The {@link MessageStore} completes asynchronously (a journal completes from its writer thread after a
 *       sync); answers that promise durability (OK to a persistent SEND or a COMMIT) wait for that completion, and
 *       session state is touched again only back on the session's event loop.</li>
 * </ul>
 *
 * <h2>Plugins</h2>
 * What runs beside the queue manager without being part of it (the flow host's message flows) is a
 * {@link ServerPlugin}: started after the listeners, stopped before them, connected over the in-VM listener.
 */
public final class WharfServer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(WharfServer.class.getName());
    private static final int SHUTDOWN_TIMEOUT_SECONDS = 5;

    private final ServerConfig config;
    private final AccessControl accessControl;
    private final NativeTransport transport;
    private final QueueManager queueManager;
    private final TopicManager topicManager;
    /** The XA transaction branches: those recovery restores, and those clients start. */
    private final XaBranches xaBranches;
    private final MessageStore store;
    private final ChannelGroup connections;
    private final ConnectionLimits connectionLimits;
    /** The connections past their handshake, by number: what the management view lists and ends. */
    private final OpenConnections openConnections = new OpenConnections();
    /** What operators see and do: the view handed to plugins. */
    private final Management management;
    private final EventLoopGroup acceptorGroup;
    private final EventLoopGroup ioGroup;
    private final EventLoopGroup inVmGroup;
    private final List<Channel> listeners = new ArrayList<>(2);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final List<ServerPlugin> plugins;
    /** Where CHANNEL_OPEN goes: the plugin that receives channels, set through its Host; made by bind(). */
    private org.wharfmq.server.transport.ChannelAcceptorSlot channelAcceptor;
    /** Who may connect: the users and the throttle of failed logins. */
    private final Logins logins;
    /** The plugins whose start was called, in that order: the ones close() stops. */
    private final List<ServerPlugin> startedPlugins = new ArrayList<>();
    /** The plain TCP listener's port; -1 when it is off (tls.plain: false). */
    private int tcpPort = -1;
    /** The TLS listener's port; -1 when there is none. */
    private int tlsPort = -1;
    /** The TLS engine the listener runs on, for the start line: JDK or OpenSSL. */
    private String tlsEngine;
    /** How long each step of the start took, from the store open ({@link #startSteps}). */
    private final StepTimes startSteps = new StepTimes();

    private WharfServer(ServerConfig config, MessageStore store, InstantSource clock, Logins logins,
                        AccessControl accessControl, List<ServerPlugin> plugins,
                        Supplier<ReplicationState> replication, QueueDefinitionFile definitions) {
        this.config = config;
        this.logins = logins;
        this.accessControl = accessControl;
        this.plugins = plugins;
        this.transport = NativeTransport.best();
        this.store = store;
        this.queueManager = new QueueManager(config, store, clock, definitions);
        this.topicManager = new TopicManager(config, queueManager);
        this.xaBranches = new XaBranches(queueManager.persistence(), topicManager, queueManager.clock());
        this.connections = new DefaultChannelGroup("wharf-connections", GlobalEventExecutor.INSTANCE);
        this.connectionLimits = new ConnectionLimits(config);
        this.acceptorGroup = transport.eventLoopGroup(1, new DefaultThreadFactory("wharf-accept", true));
        this.ioGroup = transport.eventLoopGroup(config.ioThreads(), new DefaultThreadFactory("wharf-io", true));
        this.inVmGroup = InVmListener.loops();
        queueManager.publishEventsTo(new QueueEventPublisher(topicManager, ioGroup));
        this.management = new BrokerManagement(config, queueManager, topicManager, openConnections, store, xaBranches,
                this::listenerUrls, System.currentTimeMillis(), replication);
    }

    /**
     * Starts a queue manager and returns once both listeners accept connections and {@code plugins} have started
     * (see {@link ServerPlugin} for their life cycle): the journal in the configured data directory, the system
     * clock, no security file. {@link #builder} chooses the rest.
     *
     * @throws BindException when the TCP port is taken (the message names the port and how to choose another)
     * @throws IllegalStateException when another server in this JVM already uses the in-VM name
     * @throws Exception what a plugin's start threw
     */
    public static WharfServer start(ServerConfig config, ServerPlugin... plugins) throws Exception {
        return builder(config).plugins(plugins).start();
    }

    /** A queue manager to start with {@code config} and, unless chosen otherwise, the defaults of {@link #start}. */
    public static Starter builder(ServerConfig config) {
        return new Starter(config);
    }

    /**
     * What a queue manager starts with besides its settings: where persistent messages are kept, the clock its queues
     * read, who may do what, and its plugins. Each has the default {@link #start(ServerConfig, ServerPlugin...)}
     * uses.
     */
    public static final class Starter {

        private final ServerConfig config;
        private MessageStore store;
        private InstantSource clock = InstantSource.system();
        private Authenticator authenticator = Authenticator.localOnly();
        private AccessControl accessControl;
        private List<ServerPlugin> plugins = List.of();
        private Supplier<ReplicationState> replication = () -> null;
        private QueueDefinitionFile definitions;

        private Starter(ServerConfig config) {
            this.config = config;
        }

        /**
         * Keeps persistent messages in {@code store} (a test double, or a journal opened by the caller) instead of
         * the journal in the data directory; the server restores what it recovered and closes it when it stops.
         */
        public Starter store(MessageStore store) {
            this.store = store;
            return this;
        }

        /** The clock the queues read (message expiry, deletion of unused queues): tests pass one they move on. */
        public Starter clock(InstantSource clock) {
            this.clock = clock;
            return this;
        }

        /**
         * Who may connect: the users the security file names, or JAAS ({@code docs/security.md}). Default
         * {@link Authenticator#localOnly()}: no users, anonymous clients from this machine only.
         */
        public Starter authenticator(Authenticator authenticator) {
            this.authenticator = authenticator;
            return this;
        }

        /**
         * Who may do what ({@code docs/security.md}); the caller keeps it to put new rules in force at run time.
         * Default: no security file, every client may do everything.
         */
        public Starter accessControl(AccessControl accessControl) {
            this.accessControl = accessControl;
            return this;
        }

        /**
         * Where the management view ({@code display server}, the metrics) reads this instance's place in a
         * replicated queue manager; by default none.
         */
        public Starter replication(Supplier<ReplicationState> state) {
            this.replication = state;
            return this;
        }

        /**
         * Keeps the definitions made at run time in {@code definitions} (a replicated queue manager's, which its
         * members share) instead of the data directory's own {@link QueueDefinitionFile}.
         */
        public Starter definitions(QueueDefinitionFile definitions) {
            this.definitions = definitions;
            return this;
        }

        /** What runs beside the queue manager, started in this order once the listeners accept connections. */
        public Starter plugins(ServerPlugin... plugins) {
            this.plugins = List.of(plugins);
            return this;
        }

        /**
         * Starts the queue manager: restores what the store recovered, binds both listeners, starts the plugins.
         *
         * @throws BindException when the TCP port is taken (the message names the port and how to choose another)
         * @throws IllegalStateException when another server in this JVM already uses the in-VM name
         * @throws Exception what opening the store or a plugin's start threw
         */
        public WharfServer start() throws Exception {
            LeakDetection.applyDefault();
            MessageStore opened = store != null ? store : JournalMessageStore.open(config);
            WharfServer server;
            try {
                server = new WharfServer(config, opened, clock,
                        new Logins(authenticator), accessControl != null ? accessControl : AccessControl.allowAll(),
                        plugins, replication, definitions != null ? definitions
                                : QueueDefinitionFile.in(config.dataDirectory()));
            } catch (RuntimeException | Error e) {
                opened.close();
                throw e;
            }
            try {
                server.queueManager.persistence().recover(new RecoveryRouter(server.queueManager, server.topicManager,
                        server.xaBranches));
                server.xaBranches.reportRecovered();
                server.queueManager.scheduleRecoveredDelays(server.ioGroup);
                server.queueManager.backOutRecovered();
                server.queueManager.scheduleAutoDelete(server.ioGroup);
                server.scheduleIdleFrameMemory();
                server.startSteps.done("recovered");
                server.bind();
                server.startSteps.done("listeners bound");
                server.startPlugins(); // plugins connect over the in-VM listener, so they start last
            } catch (Exception | Error e) {
                server.close();
                throw e;
            }
            return server;
        }
    }

    /**
     * Frees the JVM's idle memory of large frames ({@link SpareFrameBuffers}) once not taken for
     * {@value SpareFrameBuffers#IDLE_MILLIS} ms, also when no large frame comes to do it.
     */
    private void scheduleIdleFrameMemory() {
        long period = SpareFrameBuffers.IDLE_MILLIS;
        ioGroup.scheduleAtFixedRate(LargeFrameMemory.JVM.spares()::letGoIdle, period, period, TimeUnit.MILLISECONDS);
    }

    private void bind() throws Exception {
        ServerContext context = new ServerContext(config, queueManager, topicManager, accessControl, connections,
                WharfVersion.current(), logins, connectionLimits, xaBranches, openConnections);
        channelAcceptor = context.channelAcceptor();
        ServerChannelInitializer initializer = new ServerChannelInitializer(context);
        if (config.plainListener()) {
            Channel tcp = bindTcp(config.port(), "port", initializer);
            tcpPort = ((InetSocketAddress) tcp.localAddress()).getPort();
        }
        if (config.tls().isPresent()) {
            TlsConfig tls = config.tls().get();
            SslContext sslContext = ServerTls.serverContext(tls); // one per listener: every connection's SslHandler
            Channel listener = bindTcp(tls.port(), "tls.port", new ServerChannelInitializer(context, sslContext));
            tlsPort = ((InetSocketAddress) listener.localAddress()).getPort();
            tlsEngine = sslContext instanceof JdkSslContext ? "JDK" : "OpenSSL";
        }

        ChannelFuture vm = new ServerBootstrap()
                .group(inVmGroup)
                .channel(InVmListener.channelClass())
                .childHandler(initializer)
                .bind(new LocalAddress(config.inVmName()))
                .awaitUninterruptibly();
        if (!vm.isSuccess()) {
            throw new IllegalStateException("In-VM name '" + config.inVmName() + "' is already in use in this JVM "
                    + "(setting inVmName): give each server its own.", vm.cause());
        }
        listeners.add(vm.channel());
        LOG.log(System.Logger.Level.INFO, "Queue manager " + config.name() + " listening on "
                + String.join(", ", networkUrls()) + (tlsPort >= 0 ? " (TLS: " + tlsEngine + " engine)" : "")
                + " and " + vmUrl() + " (" + transport.name().toLowerCase() + ")");
        LOG.log(System.Logger.Level.INFO, "Messages in memory are limited to a " + queueManager.memoryBudget()
                + "; docs/resilience.md");
        switch (logins.authenticator().anonymousAccess()) {
            case LOOPBACK -> LOG.log(System.Logger.Level.INFO, "No users configured: only local clients (127.0.0.1, ::1)"
                    + " may connect. Add users (bin/wharf user add) or set allowAnonymous: true.");
            case ANYWHERE -> LOG.log(System.Logger.Level.WARNING, "allowAnonymous: true: any client that reaches "
                    + listenUrl() + " may connect without a user name.");
            case NOWHERE -> { // every TCP client authenticates: nothing to warn about
            }
        }
    }

    /** Binds a TCP listener on the configured host; {@code setting} names the port in errors. */
    private Channel bindTcp(int port, String setting, ServerChannelInitializer initializer) throws Exception {
        Channel tcp = TcpListener.bind(transport, acceptorGroup, ioGroup, config.host(), port, setting, initializer);
        listeners.add(tcp);
        return tcp;
    }

    private void startPlugins() throws Exception {
        ServerPlugin.Host host = new ServerPlugin.Host() {
            @Override
            public ServerConfig config() {
                return config;
            }

            @Override
            public String vmUrl() {
                return WharfServer.this.vmUrl();
            }

            @Override
            public String topicReport() {
                return topicManager.report();
            }

            @Override
            public Management management() {
                return management;
            }

            @Override
            public Logins logins() {
                return logins;
            }

            @Override
            public AccessControl accessControl() {
                return accessControl;
            }

            @Override
            public org.wharfmq.server.queue.MemoryBudget memoryBudget() {
                return queueManager.memoryBudget();
            }

            @Override
            public void acceptChannels(ChannelAcceptor acceptor) {
                channelAcceptor.set(acceptor);
            }

            @Override
            public InProcessTakes takeMessages(Identity who, String peer) {
                return InProcessTakes.open(ioGroup.next(), config, queueManager, topicManager, xaBranches,
                        accessControl, who, peer);
            }

            @Override
            public InProcessProducer putMessages(Identity who, String peer) {
                return InProcessProducer.open(ioGroup.next(), config, queueManager, topicManager, accessControl, who,
                        peer);
            }
        };
        for (ServerPlugin plugin : plugins) {
            startedPlugins.add(plugin); // before start: a start that throws is closed too
            plugin.start(host);
            startSteps.done(plugin.getClass().getSimpleName());
        }
    }

    /**
     * How long each step of this queue manager's start took, since the server was made on its opened store: its
     * recovery handed to the queues, its listeners bound, each plugin started ("recovered 12 ms, listeners bound 40
     * ms, HttpPlugin 900 ms").
     */
    public String startSteps() {
        return startSteps.toString();
    }

    /** The settings the server runs with. */
    public ServerConfig config() {
        return config;
    }

    /** The TLS port actually bound, -1 when the server has no TLS listener. */
    public int tlsPort() {
        return tlsPort;
    }

    /** A URL a client on this machine uses to reach the TLS listener ({@code ssl://127.0.0.1:PORT}); null without one. */
    public String tlsUrl() {
        return tlsPort < 0 ? null : "ssl://" + localHost() + ":" + tlsPort;
    }

    /** The TCP port actually bound (differs from the configured one when that is 0); -1 when the plain listener is off. */
    public int tcpPort() {
        return tcpPort;
    }

    /** A URL a client on this machine uses to reach the TCP listener. */
    public String tcpUrl() {
        return "tcp://" + localHost() + ":" + tcpPort;
    }

    /** The host a client on this machine connects to: the configured one, or loopback for a wildcard. */
    private String localHost() {
        String host = config.host();
        boolean wildcard = host.equals("0.0.0.0") || host.equals("::") || host.equals("*");
        return wildcard ? "127.0.0.1" : host;
    }

    /**
     * The addresses the network listeners are bound to, as URLs: the plain one ({@code tcp://0.0.0.0:7414}) unless
     * it is off, then the TLS one ({@code ssl://0.0.0.0:7415}) when there is one.
     */
    public List<String> networkUrls() {
        List<String> urls = new ArrayList<>(2);
        if (tcpPort >= 0) {
            urls.add(listenUrl());
        }
        if (tlsPort >= 0) {
            urls.add("ssl://" + config.host() + ":" + tlsPort);
        }
        return urls;
    }

    /** The network listeners' URLs ({@link #networkUrls}), then the in-VM one. */
    private List<String> listenerUrls() {
        List<String> urls = new ArrayList<>(networkUrls());
        urls.add(vmUrl());
        return urls;
    }

    /** What operators see of this queue manager and do to it (the view its plugins get). */
    public Management management() {
        return management;
    }

    /** The address the TCP listener is bound to, as a URL, e.g. {@code tcp://0.0.0.0:7414}. */
    public String listenUrl() {
        return "tcp://" + config.host() + ":" + tcpPort;
    }

    /** The URL of the in-VM listener: {@code vm://} and the configured {@code inVmName}. */
    public String vmUrl() {
        return "vm://" + config.inVmName();
    }

    /** Who may do what: {@link AccessControl#replace} puts new rules in force at run time. */
    public AccessControl accessControl() {
        return accessControl;
    }

    /** The queues. */
    public QueueManager queueManager() {
        return queueManager;
    }

    /** The store persistent messages are kept in (through {@link QueueManager#persistence()}): for tests and tools. */
    public MessageStore store() {
        return store;
    }

    /** Topics, subscriptions and retained publications. */
    public TopicManager topicManager() {
        return topicManager;
    }

    /**
     * Client connections over TCP and TLS open now, as {@code maxConnections} counts them (in-VM ones are not): for
     * tests and tools.
     */
    public int networkConnections() {
        return connectionLimits.count();
    }

    /**
     * The event loops of TCP and TLS connections: for tests that hold them up to see what connections queue on them.
     * An in-VM connection runs on its client's loop ({@link InVmListener}).
     */
    EventLoopGroup networkLoops() {
        return ioGroup;
    }

    /**
     * Stops serving network clients at once and leaves the rest to {@link #close}: the listeners stop accepting and
     * every client connection is closed without a word, as a network cut would close it. For a replicated queue
     * manager's member that stopped being the active one: its clients must see their connections lost (a commit's
     * outcome unknown, a send sent again), never a failure answered for work the next active member may yet commit.
     * Not on an event loop's thread.
     */
    public void disconnectClients() {
        for (Channel listener : listeners) {
            listener.close().awaitUninterruptibly();
        }
        connections.close().awaitUninterruptibly(SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * Stops in order: plugins (the reverse of their start order), no new connections, clients told SERVER_CLOSING,
     * connections closed (their unacknowledged messages go back to the queues), event loops stopped, then queues and
     * store released. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (int i = startedPlugins.size() - 1; i >= 0; i--) {
            ServerPlugin plugin = startedPlugins.get(i);
            try {
                plugin.close(); // while their connections still work: a plugin may drain
            } catch (RuntimeException e) { // a broken plugin must not keep the listeners and the journal open
                LOG.log(System.Logger.Level.WARNING, "Plugin " + plugin + " failed to stop: " + e, e);
            }
        }
        for (Channel listener : listeners) {
            listener.close().awaitUninterruptibly();
        }
        connections.writeAndFlush(new Frame.Error(0, ErrorCode.SERVER_CLOSING,
                "Queue manager " + config.name() + " is stopping.", 0, 0));
        connections.close().awaitUninterruptibly(SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        List<Future<?>> terminations = List.of(
                acceptorGroup.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS),
                ioGroup.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS),
                inVmGroup.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS));
        for (Future<?> termination : terminations) {
            termination.awaitUninterruptibly(2L * SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        topicManager.close();
        queueManager.close();
        store.close();
    }
}
