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
     * The largest HTTP request accepted, headers and body together, in bytes: {@value} (64 KiB). A longer one is
     * answered 413 and its connection closed; the console's forms and a flow's HTTP input are far smaller.
     */
    public static final int MAX_REQUEST_BYTES = 64 * 1024;

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
