package org.wharfmq.server.http;

import org.wharfmq.server.config.Setting;

/**
 * The HTTP listener's settings and limits (docs/operations.md, "HTTP listener"): each key of the {@code http:} block
 * one {@link Setting}, named after it, with its default and the values it accepts, which {@link HttpSettings}
 * reads, checks and shows with no code of a setting's own; the other constants are fixed limits. The embedded
 * defaults have no HTTP listener; a configuration turns it on with an {@code http:} block.
 */
public final class HttpConfiguration {

    /** The listener's port: default 7480; 0 picks a free one. */
    public static final Setting<Integer> PORT = Setting.integer("port", 7480).between(0, 65535, "");

    /** The interface it binds: by default none of its own, the queue manager's {@code host}. */
    public static final Setting<String> HOST = Setting.text("host", null)
            .check(h -> h == null || !h.isBlank(), h -> "must not be empty: leave it out to bind the server's host");

    /**
     * Whether it speaks HTTPS, with the key, certificate and client authentication of the queue manager's {@code tls:}
     * block (which must then be there): default false.
     */
    public static final Setting<Boolean> TLS = Setting.flag("tls", false);

    /**
     * The request bodies the listener reads at once, over all its connections, in bytes: default 256 MiB. A body
     * counts from its head (its Content-Length; a chunked body as its chunks come) until it has arrived whole, been refused or its connection lost; then its route's own bounds
     * hold it (a flow's waiting requests: docs/flows.md). A request whose body would take them past this while other
     * bodies are on their way is answered 503 at once, naming the setting, and its body read and dropped; one that
     * finds no other body on its way is read whatever its size (up to its route's limit), so every route stays
     * callable ({@link InboundBodies}).
     */
    public static final Setting<Long> MAX_INBOUND_BODY_BYTES =
            Setting.whole("maxInboundBodyBytes", 256L * 1024 * 1024).atLeast(1);

    /**
     * The longest request body a route takes unless it says otherwise, in bytes: {@value} (64 KiB); the console's
     * forms are far smaller. A longer one is answered 413 once its Content-Length (or its chunks so far) say so,
     * before it is read whole, and the rest of it is read and dropped.
     */
    public static final int MAX_REQUEST_BYTES = 64 * 1024;

    /**
     * The longest request body any route may take, in bytes: {@value} (100 MiB, the default maxMessageLength). A
     * message flow's HTTPInput node sets its own limit up to it ({@link HttpRoutes#serve}).
     */
    public static final int MAX_ROUTE_REQUEST_BYTES = 100 * 1024 * 1024;

    /** How long an HTTP connection may stay idle (keep-alive between requests) before it is closed, in ms: {@value}. */
    public static final int IDLE_TIMEOUT_MILLIS = 60_000;

    /**
     * How long a request has, from its first byte, to arrive whole (its line, headers and body), in ms: {@value}, and
     * one second more for each {@link #REQUEST_READ_BYTES_PER_SECOND} bytes it brings. A request sent slower is
     * answered 408 and its connection closed ({@link RequestDeadline}), so that slow callers cannot hold connections.
     */
    public static final int REQUEST_READ_MILLIS = 20_000;

    /**
     * How long a connection whose caller was refused (401, 403: {@link CallerCheck}) is kept, at most, after its
     * answer, reading and dropping what the caller still sends so that the answer reaches it before the close: {@value}
     * ms. A caller that reads the answer and closes ends it sooner.
     */
    public static final int REFUSED_LINGER_MILLIS = 2_000;

    /** The bytes that earn a request one more second to arrive: {@value} (a 1 MiB body has 84 s in all). */
    public static final int REQUEST_READ_BYTES_PER_SECOND = 16 * 1024;

    /**
     * Threads that run HTTP requests' handlers (which may call the management view, and may block briefly) and check
     * their passwords (PBKDF2, a few ms each), off the listener's event loop: {@value}.
     */
    public static final int WORKER_THREADS = 2;

    /** HTTP requests waiting for a worker thread, at most; one more is answered 503: {@value}. */
    public static final int MAX_QUEUED_REQUESTS = 256;

    private HttpConfiguration() {
    }
}
