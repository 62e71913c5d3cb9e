package org.wharfmq.server.http;

/**
 * The HTTP listener's defaults and limits, each named after the key of the {@code http:} block it is the default
 * for (docs/operations.md, "HTTP listener"). The embedded defaults have no HTTP listener; a configuration turns it on
 * with an {@code http:} block ({@link HttpSettings}).
 */
public final class HttpConfiguration {

    /** The listener's port when the {@code http:} block leaves {@code port} out: {@value}. */
    public static final int DEFAULT_PORT = 7480;

    /** Whether the listener speaks HTTPS when the block leaves {@code tls} out: {@value}. */
    public static final boolean DEFAULT_TLS = false;

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
     * Threads that run HTTP requests' handlers (which may call the management view, and may block briefly) and check
     * their passwords (PBKDF2, a few ms each), off the listener's event loop: {@value}.
     */
    public static final int WORKER_THREADS = 2;

    /** HTTP requests waiting for a worker thread, at most; one more is answered 503: {@value}. */
    public static final int MAX_QUEUED_REQUESTS = 256;

    private HttpConfiguration() {
    }
}
