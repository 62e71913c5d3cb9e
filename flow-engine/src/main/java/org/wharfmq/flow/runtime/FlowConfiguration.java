package org.wharfmq.flow.runtime;

/**
 * Every fixed timing and size of the flow runtime, named and explained in one place (as the server's
 * {@code Configuration} and the client's {@code ClientConfiguration}). What a user sets per flow (instances,
 * transaction mode, backout threshold and queue) is in the flow's definition, not here.
 */
public final class FlowConfiguration {

    /**
     * How long an instance's read waits before it looks at the stop flag again, in ms: {@value}. Bounds how long
     * an idle instance takes to notice that its flow is draining. A JMSInput node's reader waits this long as a busy
     * reader, then (idle) on up to the node's receiveTimeout, a wait the flow's stop ends at once
     * ({@link StoppableReceive}); a coordinated reader of a Wharf queue or topic waits {@link #IDLE_WAIT_MILLIS}
     * instead.
     */
    public static final long POLL_MILLIS = 100;

    /**
     * How long a coordinated reader of a Wharf queue or topic waits for a message before it looks again, in ms:
     * {@value}. It waits without a transaction (it begins one only once a message is there), a message ends the wait
     * at once and so does the flow's stop ({@link StoppableReceive}), so an idle reader costs one wake-up per this
     * long.
     */
    public static final long IDLE_WAIT_MILLIS = 60_000;

    /**
     * How long a busy reader keeps a data source's connection (and the statements prepared on it) from one invocation
     * to the next before it gives it back to the pool at an invocation's end, in ms: {@value}. A reader whose read
     * finds no message gives it back at once. Kept below the shortest {@code connectionTimeoutMillis} (250), so that
     * an invocation of another reader waiting for a connection of a pool smaller than its readers gets one in time.
     */
    public static final long KEEP_CONNECTION_MILLIS = 100;

    /**
     * The first wait before an instance reconnects after its connection dropped, in ms: {@value}. A dropped
     * connection to a running server usually comes back at once.
     */
    public static final long FIRST_RETRY_MILLIS = 100;

    /** The longest wait between reconnection attempts while the server is down, in ms: {@value} (doubling up to it). */
    public static final long MAX_RETRY_MILLIS = 10_000;

    /** Longest a flow waits for every instance to open its connection and consumer when it starts, in s: {@value}. */
    public static final int START_TIMEOUT_SECONDS = 30;

    /** Longest a flow waits for its running invocations to finish when it stops (undeploy, redeploy), in s: {@value}. */
    public static final int DRAIN_TIMEOUT_SECONDS = 60;

    /**
     * Failures remembered between a rollback and the redelivery that backs the message out (to give the backout
     * queue the failure's ExceptionList): {@value}. Past it they are all forgotten, so a flood of failing messages
     * cannot fill the heap; only the text of a later backout suffers, the message itself stays safe on its queue.
     */
    public static final int MAX_REMEMBERED_FAILURES = 10_000;

    /**
     * HTTP requests that may wait for a free instance of one HTTPInput node, at most: {@value}. One more is answered
     * 503 at once; a request that waits past its node's timeout is answered 504 and never run.
     */
    public static final int MAX_QUEUED_HTTP_REQUESTS = 1000;

    /**
     * The bytes of request bodies that may wait for a free instance of one HTTPInput node, at most: {@value} (64 MiB).
     * A request whose body would take the waiting ones past it is answered 503 at once, but for one that finds none
     * waiting, whatever its size (up to the node's {@code maxRequestBytes}): without it, 1,000 waiting requests of a
     * 1 MiB node would hold 1 GiB of the server's heap, of a 100 MiB node 100 GiB. A request counts until an instance
     * takes it (also after its timeout answered it).
     */
    public static final long MAX_QUEUED_HTTP_REQUEST_BYTES = 64L << 20;

    /**
     * The {@code Retry-After} of an HTTP request answered 503 because a data source gave no connection (the database
     * does not answer, or its pool is all in use), in s: {@value}. About a connection timeout's default (5 s): long
     * enough for a pool to free a connection or a restarting database to come back, short for a person waiting.
     */
    public static final int DATABASE_RETRY_AFTER_SECONDS = 5;

    /**
     * Connections as HTTP callers (HTTPInput runAs CALLER) one instance of an HTTPInput node keeps open, at most:
     * {@value}, the least recently used closed past that. A caller's next request on that instance connects again.
     */
    public static final int MAX_CALLER_CONNECTIONS = 8;

    /**
     * The longest message a flow takes its server to accept when its host does not say ({@code wharf flow run}), in
     * bytes: {@value}, the queue manager's default maxMessageLength.
     */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 100 * 1024 * 1024;

    private FlowConfiguration() {
    }
}
