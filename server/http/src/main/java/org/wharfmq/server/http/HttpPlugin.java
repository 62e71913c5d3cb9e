package org.wharfmq.server.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.transport.ConnectionLimits;
import org.wharfmq.server.transport.NativeTransport;
import org.wharfmq.server.transport.ServerTls;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The queue manager's HTTP listener, a {@link ServerPlugin}: serves the {@link #routes()} other plugins register
 * (metrics, the web console) on the port its {@link HttpSettings} say (the {@code http:} block), with Netty's
 * HTTP/1.1 codec, keep-alive, callers logged in and checked from a request's head before its body is read
 * ({@link CallerCheck}), request bodies of at most their route's limit, and of at most {@code maxInboundBodyBytes}
 * being read at once over all connections ({@link RequestLimit}), HTTPS with the TLS
 * listener's key when {@code http.tls} is set, and the wire's users and permission rules ({@link HttpRoutes} says
 * how). Without settings it listens nowhere (the embedded default). Start it after the plugins that register routes
 * in their start.
 *
 * <p>One event loop thread reads and writes; {@link HttpConfiguration#WORKER_THREADS} workers log callers in and
 * run handlers, with at most {@link HttpConfiguration#MAX_QUEUED_REQUESTS} requests waiting (then 503).
 */
public final class HttpPlugin implements ServerPlugin {

    private static final System.Logger LOG = System.getLogger(HttpPlugin.class.getName());
    private static final int SHUTDOWN_TIMEOUT_SECONDS = 5;

    private final HttpRoutes routes = new HttpRoutes();
    private final HttpSettings settings;
    private EventLoopGroup group;
    private ExecutorService workers;
    private Channel listener;
    private String boundHost;
    private String url;

    /** A listener that listens nowhere (no {@code http:} block): the routes registered with it are not served. */
    public HttpPlugin() {
        this(null);
    }

    /**
     * A listener with these settings.
     *
     * @param settings where it listens (the {@code http:} block); null: nowhere
     */
    public HttpPlugin(HttpSettings settings) {
        this.settings = settings;
    }

    /** Whether this listener has settings (an {@code http:} block), so that it listens once started. */
    public boolean listens() {
        return settings != null;
    }

    /**
     * Where a client on this machine reaches this listener, as its settings give it ({@code http://127.0.0.1:7480}):
     * known before it listens, for what the server sets up first (a flow's {@code FlowProperties}). A listener on
     * every interface ({@code 0.0.0.0}, {@code ::}) is reached on the loopback address.
     *
     * @param server the server's settings, whose {@code host} the listener binds when its own is left out
     * @return null when it has no settings, or its port is chosen when it starts ({@code port: 0})
     */
    public String configuredUrl(ServerConfig server) {
        if (settings == null || settings.port() == 0) {
            return null;
        }
        return reachable(settings.host() != null ? settings.host() : server.host(), settings.port());
    }

    /**
     * Where a client on this machine reaches the started listener ({@code http://127.0.0.1:7480}, its port the one
     * bound), as {@link #configuredUrl}; null when it does not listen.
     */
    public String localUrl() {
        return listener == null ? null : reachable(boundHost, port());
    }

    private String reachable(String host, int port) {
        if (host == null || host.isBlank() || host.equals("0.0.0.0")) {
            host = "127.0.0.1";
        } else if (host.equals("::") || host.equals("[::]")) {
            host = "[::1]";
        } else if (host.contains(":") && !host.startsWith("[")) {
            host = "[" + host + "]"; // an IPv6 address in a URL
        }
        return (settings.tls() ? "https://" : "http://") + host + ":" + port;
    }

    /** What this listener serves: register routes here. */
    public HttpRoutes routes() {
        return routes;
    }

    /**
     * Listens on its settings' port, when it has settings.
     *
     * @throws BindException when the port is taken (the message names it and the setting)
     * @throws org.wharfmq.server.config.ConfigurationException when its settings do not fit the server's
     *                                                          ({@link HttpSettings#check}) or HTTPS cannot use the
     *                                                          server's key
     */
    @Override
    public void start(Host server) throws Exception {
        if (group != null) {
            throw new IllegalStateException("This HttpPlugin has started already: give each server one of its own.");
        }
        ServerConfig config = server.config();
        if (settings == null) {
            LOG.log(System.Logger.Level.INFO, "No HTTP listener (no http: block in the configuration): no metrics or "
                    + "console over HTTP.");
            return;
        }
        settings.check(config);
        HttpSettings http = settings;
        SslContext tls = http.tls() ? ServerTls.serverContext(config.tls().orElseThrow()) : null;
        HttpLogins logins = new HttpLogins(server.logins(), config.name());
        workers = new ThreadPoolExecutor(HttpConfiguration.WORKER_THREADS, HttpConfiguration.WORKER_THREADS, 0,
                TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(HttpConfiguration.MAX_QUEUED_REQUESTS),
                new DefaultThreadFactory("wharf-http-worker", true));
        // counted apart from the wire's connections, with the same settings: a flood of either refuses only its own
        ConnectionLimits limits = new ConnectionLimits(config);
        InboundBodies bodies = new InboundBodies(http.maxInboundBodyBytes());
        NativeTransport transport = NativeTransport.best();
        group = transport.eventLoopGroup(1, new DefaultThreadFactory("wharf-http", true));
        String host = http.host() != null ? http.host() : config.host();
        ChannelFuture bound = new ServerBootstrap()
                .group(group)
                .channel(transport.serverChannelClass())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        ChannelPipeline p = channel.pipeline();
                        if (tls != null) {
                            p.addLast("tls", tls.newHandler(channel.alloc()));
                        }
                        String refused = limits.admit(channel);
                        if (refused != null) {
                            LOG.log(System.Logger.Level.DEBUG, () -> "HTTP " + refused);
                            p.addLast("refused", new RefusedConnection(refused));
                            return;
                        }
                        p.addLast("idle", new IdleStateHandler(0, 0, HttpConfiguration.IDLE_TIMEOUT_MILLIS,
                                TimeUnit.MILLISECONDS));
                        RequestDeadline deadline = new RequestDeadline(HttpConfiguration.REQUEST_READ_MILLIS,
                                HttpConfiguration.REQUEST_READ_BYTES_PER_SECOND);
                        p.addLast("deadline", deadline);
                        p.addLast("codec", new HttpServerCodec());
                        p.addLast("whole", deadline.end());
                        ReadHolds holds = new ReadHolds(channel);
                        CallerCheck callers = new CallerCheck(routes, logins, server.accessControl(), workers, holds);
                        p.addLast("caller", callers);
                        p.addLast("limit", new RequestLimit(routes, bodies));
                        p.addLast("aggregator", new HttpObjectAggregator(HttpConfiguration.MAX_ROUTE_REQUEST_BYTES));
                        p.addLast("requests", new HttpRequestHandler(callers, holds, workers, config.name()));
                    }
                })
                .bind(host, http.port())
                .awaitUninterruptibly();
        if (!bound.isSuccess()) {
            Throwable cause = bound.cause();
            BindException e = new BindException("Cannot listen for HTTP on " + host + ":" + http.port() + " ("
                    + cause.getMessage() + "): another program may use the port; choose another (setting http.port).");
            e.initCause(cause);
            throw e;
        }
        listener = bound.channel();
        boundHost = host;
        url = (tls != null ? "https://" : "http://") + host + ":" + port();
        LOG.log(System.Logger.Level.INFO, "HTTP listener on " + url + " (docs/operations.md)");
    }

    /** The port the listener is bound to; -1 when it does not listen. */
    public int port() {
        return listener == null ? -1 : ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** The listener's base URL ({@code http://host:port}), or null when it does not listen. */
    public String url() {
        return url;
    }

    /**
     * What {@code display server} says of this listener: null when it has no settings (no {@code http:} block), else
     * its address as the ready line gives it ({@code url}: {@link #url}, null until it listens) and whether it speaks
     * HTTPS ({@code tls}).
     */
    public Map<String, Object> status() {
        if (settings == null) {
            return null;
        }
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("url", url);
        status.put("tls", settings.tls());
        return status;
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close().awaitUninterruptibly();
        }
        if (group != null) {
            group.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS).awaitUninterruptibly();
        }
        if (workers != null) {
            workers.shutdownNow();
        }
    }
}
