package org.wharfmq.server;

/**
 * A plugin that keeps the {@link ServerPlugin.Host} the queue manager gives its plugins, for a test that works as a
 * plugin does (inside the queue manager: {@link ServerPlugin.Host#takeMessages}, its management) without writing one:
 * {@code TestServer.start(b -> b, config -> WharfServer.start(config, capture))}, then {@link #host()}.
 */
public final class HostCapture implements ServerPlugin {

    /** Written by the queue manager's start, read by the test after it. */
    private volatile Host host;

    @Override
    public void start(Host server) {
        host = server;
    }

    @Override
    public void close() {
    }

    /** The host of the queue manager this plugin runs in. */
    public Host host() {
        if (host == null) {
            throw new IllegalStateException("HostCapture: the queue manager has not started it (a plugin of its?)");
        }
        return host;
    }
}
