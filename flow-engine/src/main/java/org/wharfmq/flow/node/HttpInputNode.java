package org.wharfmq.flow.node;

import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.TransactionMode;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where HTTP requests enter a flow, as App Connect's HTTP Input node: the flow serves a path under {@code /flows/} on
 * the server's HTTP listener, every method of it, and each request runs the flow from {@code out} (docs/flows.md,
 * "HTTP"). The body becomes the message's body in the node's {@link #domain(Domain) domain}; the method, path, query,
 * headers and the caller's user go to the LocalEnvironment ({@link #METHOD}, {@link #PATH}, {@link #QUERY},
 * {@link #HEADERS}, {@link #USER}). An {@link HttpReplyNode} downstream gives the answer, sent once the invocation has
 * committed; a request the flow has not answered within the node's {@link #timeout(Duration) timeout} is answered
 * 504, one whose body is over {@link #maxRequestBytes(int)} 413 before it is read whole.
 *
 * <p>Who may call the path is the listener's business: a user of the security file (or an anonymous caller where
 * those are let in) with the {@code call} permission on the path (docs/security.md). The flow's own sends are made
 * as the flow host's user, whoever called; {@link #USER} says who did.
 *
 * <p>Each of the flow's {@code instances} runs one request at a time; requests wait for a free instance, at most
 * {@link org.wharfmq.flow.runtime.FlowConfiguration#MAX_QUEUED_HTTP_REQUESTS} holding bodies of at most
 * {@link org.wharfmq.flow.runtime.FlowConfiguration#MAX_QUEUED_HTTP_REQUEST_BYTES} (then 503), each within its
 * timeout.
 * An invocation that fails goes down {@code failure} when wired (which may reply, say with a 400), in a transaction
 * of its own; when nothing replied, the caller gets a 500 that names the flow and the log has the ExceptionList.
 */
public final class HttpInputNode extends Node {

    /** LocalEnvironment field: the request's method ({@code GET}, {@code POST}...). */
    public static final String METHOD = "HttpInputMethod";
    /** LocalEnvironment field: the request's decoded path, without the query. */
    public static final String PATH = "HttpInputPath";
    /** LocalEnvironment field: the query's parameters, a {@code Map<String, List<String>>}. */
    public static final String QUERY = "HttpInputQuery";
    /**
     * LocalEnvironment field: the request's headers, a {@code Map<String, String>} by lower-case name, without the
     * {@code Authorization} the listener logged the caller in with.
     */
    public static final String HEADERS = "HttpInputHeaders";
    /** LocalEnvironment field: the user the caller logged in as; absent for an anonymous caller. */
    public static final String USER = "HttpInputUser";
    /**
     * LocalEnvironment field and message user property: the request's identifier, with which an HTTPReply node of any
     * flow of the server answers it (a node that {@link #replyLater}s; App Connect's RequestIdentifier).
     */
    public static final String REQUEST_ID = "HttpRequestIdentifier";

    /** Where the paths flows serve begin: {@value}. */
    public static final String PATH_PREFIX = "/flows/";
    /** Default time from a request's arrival to its answer: 30 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    /** Default longest request body: {@value} bytes (1 MiB). */
    public static final int DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024;

    private final String path;
    private Domain domain = Domain.BLOB;
    private Duration timeout = DEFAULT_TIMEOUT;
    private int maxRequestBytes = DEFAULT_MAX_REQUEST_BYTES;
    private TransactionMode transactionMode = TransactionMode.YES;
    private RunAs runAs = RunAs.CALLER;
    private boolean replyLater;

    /** Whose authority an invocation's sends to Wharf queues and topics have. */
    public enum RunAs {
        /**
         * The HTTP caller's (default): each send needs the caller's {@code send} (queues) or {@code publish} (topics)
         * permission and carries the caller as JMSXUserID; a refused send fails the invocation, which is answered
         * 403 with nothing sent. An anonymous caller's invocation may send nothing.
         */
        CALLER,
        /** The flow host's ({@code flowHostUser}), whoever called: the flow decides, from {@link #USER}, what a caller may do. */
        FLOW
    }

    private HttpInputNode(String path) {
        super("HTTPInput", List.of(), List.of("out", "failure"));
        this.path = path;
    }

    /** Serves {@code path}, which begins with {@code /flows/} (such as {@code /flows/orders}). */
    public static HttpInputNode path(String path) {
        return new HttpInputNode(path);
    }

    /** The domain that owns the request's body (default BLOB). */
    public HttpInputNode domain(Domain domain) {
        this.domain = domain;
        return this;
    }

    /** How long a request may wait for its answer before it is answered 504 (default 30 s). */
    public HttpInputNode timeout(Duration timeout) {
        this.timeout = timeout;
        return this;
    }

    /** The longest request body taken (default 1 MiB); a longer one is answered 413 before it is read whole. */
    public HttpInputNode maxRequestBytes(int bytes) {
        this.maxRequestBytes = bytes;
        return this;
    }

    /**
     * YES (default): each request's invocation is a transaction (its sends commit before the reply goes out; a failure
     * rolls them back); NO: its sends are visible at once.
     */
    public HttpInputNode transactionMode(TransactionMode mode) {
        this.transactionMode = mode;
        return this;
    }

    /** Whose authority the invocation's sends have: the caller's (CALLER, the default) or the flow host's (FLOW). */
    public HttpInputNode runAs(RunAs runAs) {
        this.runAs = runAs;
        return this;
    }

    /**
     * Lets the reply come later, from any flow of the server (coordinated request/reply): the request's identifier is
     * put in the message ({@link #REQUEST_ID}, a user property, which the flow's sends carry on, and the
     * LocalEnvironment), and an invocation that commits without replying leaves the request waiting until an HTTPReply
     * node given that identifier answers it, or the node's timeout does (504). Off by default: such an invocation is
     * answered 500 at once.
     */
    public HttpInputNode replyLater() {
        this.replyLater = true;
        return this;
    }

    /** Whether the reply may come later, from any flow. */
    public boolean repliesLater() {
        return replyLater;
    }

    /** Whose authority the invocation's sends have. */
    public RunAs runAs() {
        return runAs;
    }

    /** The path served. */
    public String servedPath() {
        return path;
    }

    /** The body's domain. */
    public Domain domain() {
        return domain;
    }

    /** How long a request may wait for its answer. */
    public Duration timeout() {
        return timeout;
    }

    /** The longest request body taken. */
    public int maxRequestBytes() {
        return maxRequestBytes;
    }

    /** The transaction mode (YES or NO). */
    public TransactionMode transactionMode() {
        return transactionMode;
    }

    @Override
    public Map<String, Object> properties() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("path", path);
        p.put("domain", domain);
        p.put("timeout", timeout);
        p.put("maxRequestBytes", maxRequestBytes);
        p.put("transactionMode", transactionMode);
        p.put("runAs", runAs);
        p.put("replyLater", replyLater);
        return p;
    }

    @Override
    protected void validate() {
        if (path == null || !path.startsWith(PATH_PREFIX) || path.length() == PATH_PREFIX.length()
                || path.contains("?") || path.contains("#") || path.contains("//") || path.contains("/../")
                || path.endsWith("/..") || path.contains("/./")) {
            throw new FlowValidationException("an HTTPInput node's path is a plain path under " + PATH_PREFIX
                    + " (such as /flows/orders), without query, '//' or '..', was '" + path + "'.");
        }
        if (domain == null) {
            throw new FlowValidationException("an HTTPInput node needs a domain.");
        }
        if (runAs == null) {
            throw new FlowValidationException("an HTTPInput node's runAs is CALLER or FLOW, not null.");
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new FlowValidationException("an HTTPInput node's timeout must be above zero, was " + timeout + ".");
        }
        if (maxRequestBytes < 0) {
            throw new FlowValidationException("an HTTPInput node's maxRequestBytes cannot be negative, was "
                    + maxRequestBytes + ".");
        }
        if (transactionMode != TransactionMode.YES && transactionMode != TransactionMode.NO) {
            throw new FlowValidationException("an HTTPInput node's transactionMode is YES or NO (a request has no "
                    + "persistence to follow), was " + transactionMode + ".");
        }
    }

    /** Propagates a request the runtime took to {@code out}. */
    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        context.propagate(this, terminal, assembly);
    }
}
