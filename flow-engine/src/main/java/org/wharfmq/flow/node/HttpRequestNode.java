package org.wharfmq.flow.node;

import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.records.RecordFormat;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Calls an HTTP service with the message, as App Connect's HTTP Request node: the body goes out as the message's
 * domain serialises it, and the response's body (parsed by the response domain, default BLOB), status and headers
 * come back in the tree, propagated to {@code out}. A 4xx or 5xx answer, a timeout or a failed connection goes to
 * {@code failure} with the input assembly and an ExceptionList that names the status, the URL and the body's first
 * bytes ({@link HttpStatusException}), and for a 4xx or 5xx the status in the LocalEnvironment's
 * {@link #RESPONSE_STATUS}; with {@code failure} unwired the path fails.
 *
 * <p>One JDK {@link HttpClient} per node, made when the flow is built and shared by every instance of the flow
 * (thread-safe; its connection pool keeps connections to the service open between messages). The node's settings
 * are fixed once the flow is built; what varies per message comes from the LocalEnvironment:
 * {@link #REQUEST_URL} overrides the URL and {@link #REQUEST_HEADERS} adds headers. The response's status and
 * headers go to {@link #RESPONSE_STATUS} and {@link #RESPONSE_HEADERS}. A URL from the LocalEnvironment may have come
 * out of a message, so it is called only on the node URL's origin (scheme, host and port) or one the node allows
 * ({@link #allowOrigins}): a message cannot make the server call where the flow did not say it may (SSRF).
 *
 * <p>Retries ({@link #retries}): a connection that could not be made (refused, connect timeout) is retried for
 * every method, since nothing was sent; any other I/O failure (a request timeout, a connection dropped
 * mid-exchange) and a 502, 503 or 504 answer are retried only for the idempotent methods (GET, HEAD, PUT, DELETE,
 * OPTIONS, TRACE), since a POST or PATCH may have been acted on already.
 */
public final class HttpRequestNode extends Node {

    /**
     * LocalEnvironment field: the URL to call instead of the node's (a String or URI; http or https), on the node
     * URL's origin or one of {@link #allowOrigins}.
     */
    public static final String REQUEST_URL = "HttpRequestURL";
    /** LocalEnvironment field: headers to send, a {@code Map<String, ?>} of a String (or a List of them) each. */
    public static final String REQUEST_HEADERS = "HttpRequestHeaders";
    /** LocalEnvironment field of the output, and of the failure terminal's assembly for a 4xx or 5xx: the response's
     * status code (Integer). */
    public static final String RESPONSE_STATUS = "HttpResponseStatus";
    /** LocalEnvironment field of the output: the response's headers ({@code Map<String, List<String>>}). */
    public static final String RESPONSE_HEADERS = "HttpResponseHeaders";

    /** Default time to open a connection. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** Default time from sending the request to the response's headers. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(60);
    /** Default delay between attempts. */
    public static final Duration DEFAULT_RETRY_DELAY = Duration.ofSeconds(1);
    /** Default largest response body accepted (a larger one fails the request). */
    public static final int DEFAULT_MAX_RESPONSE_BYTES = 100 * 1024 * 1024;

    private static final Set<String> IDEMPOTENT = Set.of("GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE");
    private static final Set<String> NO_BODY = Set.of("GET", "HEAD");
    private static final Set<Integer> RETRIED_STATUSES = Set.of(502, 503, 504);
    /** A body read's outcome: still reading, read whole, or cut off by its deadline. */
    private static final int READING = 0;
    private static final int READ = 1;
    private static final int CUT = 2;

    private final String method;
    private final URI uri;
    /** The origins (scheme://host:port) a LocalEnvironment URL may name: the node URL's and those allowed. */
    private final Set<String> origins = new LinkedHashSet<>();
    private final Map<String, String> headers = new LinkedHashMap<>();
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private int retries;
    private Duration retryDelay = DEFAULT_RETRY_DELAY;
    private Path trustStore;
    private char[] trustStorePassword;
    private Domain responseDomain = Domain.BLOB;
    /** The layout of a RECORDS response, or null. */
    private RecordFormat responseFormat;
    private int maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES;
    /** Made by {@link #validate()} when the flow is built; read-only after. */
    private HttpClient client;
    /**
     * Cuts off the bodies that do not arrive in time (closes their streams); made by {@link #validate()}, its thread
     * ends when no body is being read.
     */
    private ScheduledThreadPoolExecutor bodyDeadlines;

    private HttpRequestNode(String method, String url) {
        super("HTTPRequest", List.of("in"), List.of("out", "failure"));
        this.method = method == null ? null : method.toUpperCase(Locale.ROOT);
        this.uri = url == null ? null : URI.create(url);
    }

    /** Calls {@code url} with {@code method} (GET, POST, PUT, DELETE...). */
    public static HttpRequestNode of(String method, String url) {
        return new HttpRequestNode(method, url);
    }

    /** POSTs the message to {@code url}. */
    public static HttpRequestNode post(String url) {
        return of("POST", url);
    }

    /** GETs {@code url} (the message's body is not sent). */
    public static HttpRequestNode get(String url) {
        return of("GET", url);
    }

    /**
     * Lets the LocalEnvironment's {@link #REQUEST_URL} name these origins too (each a URL: its scheme, host and port
     * count), besides the node URL's own. A URL on any other origin fails the message, since it may have come out of
     * the message.
     */
    public HttpRequestNode allowOrigins(String... urls) {
        for (String url : urls) {
            URI allowed = URI.create(url);
            checkScheme(allowed);
            origins.add(origin(allowed));
        }
        return this;
    }

    /** Sends this header on every request (the LocalEnvironment's {@link #REQUEST_HEADERS} override it). */
    public HttpRequestNode header(String name, String value) {
        headers.put(name, value);
        return this;
    }

    /** Sets how long opening a connection may take (default 10 s). */
    public HttpRequestNode connectTimeout(Duration timeout) {
        this.connectTimeout = timeout;
        return this;
    }

    /**
     * Sets how long the response's headers may take to arrive, per attempt (default 60 s), and then its body as long
     * again: a service that stops sending in the middle of a body does not hold the flow's instance.
     */
    public HttpRequestNode requestTimeout(Duration timeout) {
        this.requestTimeout = timeout;
        return this;
    }

    /** Sets how many times a failed attempt is repeated (default 0) and the delay before each repeat. */
    public HttpRequestNode retries(int count, Duration delay) {
        this.retries = count;
        this.retryDelay = delay;
        return this;
    }

    /**
     * Trusts the certificates in this key store (PKCS12 or JKS) for https instead of the JVM's default trust
     * store. Host names are verified either way.
     */
    public HttpRequestNode trustStore(Path path, char[] password) {
        this.trustStore = path;
        this.trustStorePassword = password == null ? null : password.clone();
        return this;
    }

    /**
     * Sets the domain that parses the response body (default BLOB). RECORDS needs the records' layout: use
     * {@link #responseRecords}.
     */
    public HttpRequestNode responseDomain(Domain domain) {
        this.responseDomain = domain;
        this.responseFormat = null;
        return this;
    }

    /**
     * Lays the response body out in {@code format} (delimited or fixed-length records): the RECORDS domain, parsed on
     * first use into {@code message().records()}.
     */
    public HttpRequestNode responseRecords(RecordFormat format) {
        this.responseDomain = Domain.RECORDS;
        this.responseFormat = format;
        return this;
    }

    /** Sets the largest response body accepted (default 100 MiB); a larger one fails the request. */
    public HttpRequestNode maxResponseBytes(int bytes) {
        this.maxResponseBytes = bytes;
        return this;
    }

    /** True: an HTTP request may block. */
    @Override
    public final boolean mayBlock() {
        return true;
    }

    @Override
    public Map<String, Object> properties() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("method", method);
        p.put("url", uri);
        if (!origins.isEmpty()) {
            p.put("allowOrigins", List.copyOf(origins));
        }
        p.put("connectTimeout", connectTimeout);
        p.put("requestTimeout", requestTimeout);
        p.put("retries", retries);
        p.put("retryDelay", retryDelay);
        p.put("responseDomain", responseDomain);
        if (responseFormat != null) {
            p.put("responseFormat", responseFormat);
        }
        p.put("maxResponseBytes", maxResponseBytes);
        if (trustStore != null) {
            p.put("trustStore", trustStore.toString());
        }
        return p;
    }

    @Override
    protected void validate() {
        if (method == null || method.isBlank()) {
            throw new FlowValidationException("an HTTPRequest node needs a method (GET, POST...).");
        }
        if (uri == null) {
            throw new FlowValidationException("an HTTPRequest node needs a URL (a message's LocalEnvironment."
                    + REQUEST_URL + " may override it).");
        }
        checkScheme(uri);
        if (uri.getHost() == null) {
            throw new FlowValidationException("an HTTPRequest node's URL must name a host, not '" + uri + "'.");
        }
        if (connectTimeout.isNegative() || connectTimeout.isZero() || requestTimeout.isNegative()
                || requestTimeout.isZero()) {
            throw new FlowValidationException("an HTTPRequest node's timeouts must be above zero (connect "
                    + connectTimeout + ", request " + requestTimeout + ").");
        }
        if (retries < 0 || retryDelay.isNegative()) {
            throw new FlowValidationException("an HTTPRequest node's retries (" + retries + ") and retry delay ("
                    + retryDelay + ") cannot be negative.");
        }
        if (maxResponseBytes < 0) {
            throw new FlowValidationException("an HTTPRequest node's maxResponseBytes cannot be negative.");
        }
        if (responseDomain == null) {
            throw new FlowValidationException("an HTTPRequest node needs a response domain (BLOB by default).");
        }
        if (responseDomain == Domain.RECORDS && responseFormat == null) {
            throw new FlowValidationException("an HTTPRequest node whose response is in the RECORDS domain needs the "
                    + "records' layout: responseRecords(format) instead of responseDomain(RECORDS).");
        }
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER);
        if (trustStore != null) {
            builder.sslContext(sslContext(trustStore, trustStorePassword));
        }
        client = builder.build();
        bodyDeadlines = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "wharf-http-request-deadlines-" + name());
            thread.setDaemon(true);
            return thread;
        });
        bodyDeadlines.setKeepAliveTime(requestTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
        bodyDeadlines.allowCoreThreadTimeOut(true);
        bodyDeadlines.setRemoveOnCancelPolicy(true);
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        MessageAssembly out;
        try {
            out = call(assembly);
        } catch (HttpStatusException e) {
            MessageAssembly failed = assembly.copy(); // the status, for a flow that answers or routes on it
            failed.localEnvironment().set(RESPONSE_STATUS, e.status());
            propagateFailure(failed, e, context);
            return;
        } catch (IOException | IllegalArgumentException e) {
            propagateFailure(assembly, e, context);
            return;
        }
        context.propagate(this, "out", out);
    }

    private MessageAssembly call(MessageAssembly assembly) throws IOException, HttpStatusException,
            InterruptedException {
        HttpRequest request = request(assembly);
        boolean idempotent = IDEMPOTENT.contains(method);
        for (int attempt = 1; ; attempt++) {
            boolean canRetry = attempt <= retries;
            HttpResponse<InputStream> response;
            byte[] body;
            try {
                response = send(request);
                body = read(response, request.uri());
            } catch (ConnectException | HttpConnectTimeoutException e) {
                if (canRetry) {
                    Thread.sleep(retryDelay.toMillis());
                    continue;
                }
                throw failed(request, attempt, e);
            } catch (IOException e) {
                if (canRetry && idempotent) {
                    Thread.sleep(retryDelay.toMillis());
                    continue;
                }
                throw failed(request, attempt, e);
            }
            int status = response.statusCode();
            if (status >= 400) {
                if (canRetry && idempotent && RETRIED_STATUSES.contains(status)) {
                    Thread.sleep(retryDelay.toMillis());
                    continue;
                }
                throw new HttpStatusException(status, method, request.uri(), body);
            }
            return response(assembly, response, body);
        }
    }

    /**
     * Sends the request and waits for the response's headers. A connection that cannot be made, or a response that does
     * not come in time, fails as the JDK's client says (the same exception types, for the retry rules), with the
     * node's setting that applies and what to check in its words: the JDK's own are "HTTP connect timed out",
     * "request timed out", or a ConnectException with no message at all.
     */
    private HttpResponse<InputStream> send(HttpRequest request) throws IOException, InterruptedException {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (HttpConnectTimeoutException e) {
            throw explained(new HttpConnectTimeoutException("connect timed out: no connection within the node's "
                    + "connectTimeout (" + connectTimeout.toMillis() + " ms). Check that the service's host is up and "
                    + "reachable from this server, or raise connectTimeout."), e);
        } catch (HttpTimeoutException e) {
            throw explained(new HttpTimeoutException("request timed out: no response within the node's "
                    + "requestTimeout (" + requestTimeout.toMillis() + " ms). Raise requestTimeout if the service "
                    + "answers that slowly, or check the service."), e);
        } catch (ConnectException e) {
            throw explained(new ConnectException("cannot connect" + (e.getMessage() == null ? "" : " ("
                    + e.getMessage() + ")") + ". Check that the service runs at "
                    + origin(request.uri()) + " and takes connections from this server."), e);
        }
    }

    private static <E extends IOException> E explained(E explained, IOException cause) {
        explained.initCause(cause);
        return explained;
    }

    private HttpRequest request(MessageAssembly assembly) {
        FlowMessage message = assembly.message();
        Object override = assembly.localEnvironment().get(REQUEST_URL);
        URI target = override == null ? uri : allowedOverride(override.toString());
        HttpRequest.Builder request = HttpRequest.newBuilder(target).timeout(requestTimeout);
        boolean sendsBody = !NO_BODY.contains(method);
        request.method(method, sendsBody ? HttpRequest.BodyPublishers.ofByteArray(message.bodyBytes())
                : HttpRequest.BodyPublishers.noBody());
        Map<String, Object> all = new LinkedHashMap<>(headers);
        Object fromTree = assembly.localEnvironment().get(REQUEST_HEADERS);
        if (fromTree instanceof Map<?, ?> map) {
            map.forEach((name, value) -> all.put(String.valueOf(name), value));
        } else if (fromTree != null) {
            throw new IllegalArgumentException("LocalEnvironment." + REQUEST_HEADERS + " must be a Map of header "
                    + "name to value, not a " + fromTree.getClass().getName() + ".");
        }
        if (sendsBody && all.keySet().stream().noneMatch("Content-Type"::equalsIgnoreCase)) {
            all.put("Content-Type", contentType(message.domain()));
        }
        all.forEach((name, value) -> {
            if (value instanceof List<?> values) {
                values.forEach(v -> request.header(name, String.valueOf(v)));
            } else if (value != null) {
                request.header(name, String.valueOf(value));
            }
        });
        return request.build();
    }

    /**
     * Reads the response body, up to {@code maxResponseBytes}, within {@code requestTimeout}: past it the body's stream
     * is closed under the read, which fails. A stream closed that way ends as a whole body does, so whether the
     * deadline cut it is decided once, by whichever of the read and the deadline ends first.
     */
    private byte[] read(HttpResponse<InputStream> response, URI target) throws IOException {
        InputStream in = response.body();
        AtomicInteger outcome = new AtomicInteger(READING);
        ScheduledFuture<?> deadline = bodyDeadlines.schedule(() -> {
            if (outcome.compareAndSet(READING, CUT)) {
                try {
                    in.close();
                } catch (IOException alreadyFailed) {
                    // the read fails either way
                }
            }
        }, requestTimeout.toNanos(), TimeUnit.NANOSECONDS);
        try (in) {
            long declared = response.headers().firstValueAsLong("Content-Length").orElse(-1);
            if (declared > maxResponseBytes) {
                throw tooLarge(target, declared);
            }
            byte[] body = in.readNBytes(maxResponseBytes);
            if (in.read() != -1) {
                throw tooLarge(target, -1);
            }
            if (outcome.compareAndSet(READING, READ)) {
                return body;
            }
        } catch (IOException e) {
            if (!outcome.compareAndSet(READING, READ)) {
                throw cut(target, e);
            }
            throw e;
        } finally {
            deadline.cancel(false);
        }
        throw cut(target, null);
    }

    private HttpTimeoutException cut(URI target, IOException cause) {
        HttpTimeoutException e = new HttpTimeoutException("The response body from " + method + " " + target
                + " timed out: it did not arrive within the node's requestTimeout (" + requestTimeout.toMillis()
                + " ms) after its headers. Raise requestTimeout if the service sends its responses that slowly.");
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }

    private IOException tooLarge(URI target, long declared) {
        return new IOException("The response from " + method + " " + target + " is larger than the node's "
                + "maxResponseBytes (" + maxResponseBytes + (declared >= 0 ? "; Content-Length " + declared : "")
                + "): raise maxResponseBytes if such responses are expected.");
    }

    private MessageAssembly response(MessageAssembly assembly, HttpResponse<?> response, byte[] body) {
        FlowMessage input = assembly.message();
        FlowMessage message = FlowMessage.ofBytes(responseDomain, body);
        if (responseFormat != null) {
            message.parseAs(responseFormat);
        }
        input.properties().asMap().forEach(message.properties()::set);
        input.headers().asMap().forEach(message.headers()::set);
        input.userProperties().asMap().forEach(message.userProperties()::set);
        MessageAssembly out = assembly.withMessage(message);
        out.localEnvironment().set(REQUEST_URL, null).set(REQUEST_HEADERS, null)
                .set(RESPONSE_STATUS, response.statusCode())
                .set(RESPONSE_HEADERS, response.headers().map());
        return out;
    }

    private IOException failed(HttpRequest request, int attempts, IOException cause) {
        return new IOException(method + " " + request.uri() + " failed (attempt " + attempts + " of "
                + (retries + 1) + "): " + cause, cause);
    }

    /** The media type of a body of {@code domain}, when nothing says otherwise (HTTPReply's too). */
    static String contentType(Domain domain) {
        return switch (domain) {
            case JSON -> "application/json";
            case XML -> "application/xml";
            case BLOB -> "application/octet-stream";
            case RECORDS -> "text/plain";
        };
    }

    /**
     * The LocalEnvironment's URL, when it is on the node URL's origin or an allowed one.
     *
     * @throws IllegalArgumentException naming the URL, the origins allowed and the setting, when it is not
     */
    private URI allowedOverride(String override) {
        URI target = URI.create(override).normalize();
        checkScheme(target);
        String origin = origin(target);
        if (!origin.equals(origin(uri)) && !origins.contains(origin)) {
            throw new IllegalArgumentException("LocalEnvironment." + REQUEST_URL + " " + override + " is on the origin "
                    + origin + ", which this node may not call: a URL from the LocalEnvironment may have come out of "
                    + "a message, so it may name only the node URL's origin (" + origin(uri) + ")"
                    + (origins.isEmpty() ? "" : " or " + String.join(", ", origins))
                    + ". Add the origin to the node's allowOrigins(...) if the flow may call it.");
        }
        return target;
    }

    /** scheme://host:port, lower case, the port given even when it is the scheme's default. */
    private static String origin(URI url) {
        String scheme = url.getScheme().toLowerCase(Locale.ROOT);
        if (url.getHost() == null) {
            throw new IllegalArgumentException("The URL " + url + " names no host.");
        }
        int port = url.getPort() >= 0 ? url.getPort() : scheme.equals("https") ? 443 : 80;
        return scheme + "://" + url.getHost().toLowerCase(Locale.ROOT) + ":" + port;
    }

    private static void checkScheme(URI target) {
        String scheme = target.getScheme();
        if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme)) {
            throw new FlowValidationException("an HTTPRequest node calls http or https URLs only, not '" + target
                    + "'.");
        }
    }

    private static SSLContext sslContext(Path path, char[] password) {
        if (!Files.isReadable(path)) {
            throw new FlowValidationException("cannot read the trust store " + path.toAbsolutePath()
                    + ": no such readable file.");
        }
        try {
            KeyStore store = KeyStore.getInstance(path.toFile(), password);
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new FlowValidationException("cannot load the trust store " + path.toAbsolutePath() + " (PKCS12 "
                    + "or JKS, with its password): " + e.getMessage());
        }
    }
}
