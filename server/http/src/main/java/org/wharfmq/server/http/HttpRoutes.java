package org.wharfmq.server.http;

import org.wharfmq.server.security.Permission;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * What the HTTP listener serves: paths, each with the permission its callers need and a handler. Plugins register
 * on it (the metrics on {@code /metrics}, the web console on {@code /} and {@code /api/...}); get it from
 * {@link HttpPlugin#routes()} and register in the plugin's constructor or its {@code start}. Routes may come and go
 * while the server runs (a flow's HTTP input node): {@link Registration#close()} removes one. Thread-safe.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * HttpPlugin http = new HttpPlugin();
 * http.routes().get("/api/queues", Permission.MONITOR, call -> HttpAnswer.json(management.queues(call.parameter("pattern"))));
 * http.routes().post("/api/queues/clear", Permission.ADMIN, call -> HttpAnswer.json(management.clearQueue(call.parameter("name"))));
 * http.routes().resources("/console/", Permission.MONITOR, Console.class.getClassLoader(), "org/wharfmq/console/static/");
 * WharfServer.start(config, consolePlugin, http); // the HTTP plugin last: it listens once the routes are there
 * }</pre>
 *
 * <h2>Matching</h2>
 * A request's path (decoded, without the query) is matched exactly against the {@link #get}/{@link #post}/
 * {@link #serve} paths, then against the {@link #resources} prefixes, longest first. A path with no route is 404, a route with another
 * method 405 (with {@code Allow}); both are said in plain text.
 *
 * <h2>Who may call</h2>
 * Every route needs a permission of the security file's rules, checked for every request before its handler runs:
 * {@link Permission#MONITOR} to see (metrics, the console's views; admins have it too), {@link Permission#ADMIN} to
 * change, {@link Permission#CONNECT} for anything a user who may connect may see, {@link Permission#CALL} on the
 * request's path for a message flow's path. Callers log in with HTTP Basic
 * (a user of the users file) or a mapped TLS client certificate; anonymous callers come in where the wire lets them
 * (by default from this machine only). Every caller must first be one the wire would let in
 * ({@link org.wharfmq.server.security.AccessControl#admit}, the {@link Permission#CONNECT} permission, which
 * {@link Permission#ADMIN} does not include). 401 asks for a login; 403 says which permission is missing.
 *
 * <h2>Handlers</h2>
 * A {@link HttpHandler} (or the {@link AsyncHttpHandler} of {@link #serve}, which returns at once with an answer to
 * come) runs on one of the listener's worker threads ({@link HttpConfiguration#WORKER_THREADS}),
 * so it may call {@code management()}. Its exceptions become answers: {@link HttpRefusal} its own status;
 * {@link IllegalArgumentException} 400; {@link java.util.NoSuchElementException} and a
 * {@link org.wharfmq.server.WharfException} UNKNOWN_DESTINATION 404; other {@code WharfException}s and
 * {@link IllegalStateException} 409; each with the exception's message as the text. Anything else is 500, logged
 * with its stack trace, the caller told only to look at the server log.
 */
public final class HttpRoutes {

    /** The method of a route that answers every method ({@link #serve}). */
    static final String ANY_METHOD = "*";

    /**
     * A route: its method ({@link #ANY_METHOD} for all) and path (or path prefix), the permission its callers need
     * (on the path, for {@link Permission#CALL}), the longest request body it takes, its handler.
     */
    record Route(String method, String path, boolean prefix, Permission permission, int maxRequestBytes,
                 String limitSetting, AsyncHttpHandler handler) {
    }

    /** The outcome of matching a request: its route, or the methods the path has (none: 404). */
    record Match(Route route, List<String> allowed) {
    }

    /** Exact routes by path, then by method. */
    private final ConcurrentMap<String, Map<String, Route>> exact = new ConcurrentHashMap<>();
    /** Prefix routes (GET), by prefix. */
    private final ConcurrentMap<String, Route> prefixes = new ConcurrentHashMap<>();

    /** Serves {@code GET path} with {@code handler} to callers holding {@code permission}. */
    public Registration get(String path, Permission permission, HttpHandler handler) {
        return add(new Route("GET", path, false, permission, HttpConfiguration.MAX_REQUEST_BYTES, null, sync(handler)));
    }

    /** Serves {@code POST path} with {@code handler} to callers holding {@code permission}. */
    public Registration post(String path, Permission permission, HttpHandler handler) {
        return add(new Route("POST", path, false, permission, HttpConfiguration.MAX_REQUEST_BYTES, null, sync(handler)));
    }

    /**
     * Serves every method of {@code path} with {@code handler}, which answers later (a message flow's HTTPInput
     * node: the answer comes when the flow replies), to callers holding {@code permission} (checked on the path for
     * {@link Permission#CALL}). A request whose body is longer than {@code maxRequestBytes} is answered 413 as soon
     * as its Content-Length (or its chunks so far) say so, before it is read whole, naming {@code limitSetting}, the
     * setting that raises the limit.
     *
     * @param maxRequestBytes 0 to {@link HttpConfiguration#MAX_ROUTE_REQUEST_BYTES}
     * @param limitSetting    where the limit is set, as the 413 names it to the caller ("the maxRequestBytes of flow
     *                        'orders''s HTTPInput node 'in'")
     * @throws IllegalArgumentException when the limit is out of range or the path does not start with {@code /}
     * @throws IllegalStateException    when the path is served already
     */
    public Registration serve(String path, Permission permission, int maxRequestBytes, String limitSetting,
                              AsyncHttpHandler handler) {
        if (maxRequestBytes < 0 || maxRequestBytes > HttpConfiguration.MAX_ROUTE_REQUEST_BYTES) {
            throw new IllegalArgumentException("The longest request body of route '" + path + "' must be between 0 "
                    + "and " + HttpConfiguration.MAX_ROUTE_REQUEST_BYTES + " bytes, was " + maxRequestBytes + ".");
        }
        Map<String, Route> byMethod = exact.get(path);
        if (byMethod != null && !byMethod.isEmpty()) {
            throw new IllegalStateException("Path '" + path + "' is served already: choose another one.");
        }
        return add(new Route(ANY_METHOD, path, false, permission, maxRequestBytes, limitSetting, handler));
    }

    private static AsyncHttpHandler sync(HttpHandler handler) {
        return call -> CompletableFuture.completedFuture(handler.handle(call));
    }

    /**
     * Serves the files under {@code classpathRoot} of {@code loader} at the paths under {@code prefix}, by GET:
     * {@code prefix + "app.js"} is resource {@code classpathRoot + "app.js"}, its content type from its extension
     * (html, js, css, json, svg, png, ico, txt, map; others are 404). Paths with {@code ..} or {@code //} are 404.
     *
     * @param prefix        a path ending with {@code /}
     * @param classpathRoot a resource directory ending with {@code /}, no leading {@code /}
     */
    public Registration resources(String prefix, Permission permission, ClassLoader loader, String classpathRoot) {
        if (!prefix.endsWith("/") || !classpathRoot.endsWith("/") || classpathRoot.startsWith("/")) {
            throw new IllegalArgumentException("A resources prefix and classpath root end with '/' (the root without a "
                    + "leading '/'): '" + prefix + "', '" + classpathRoot + "'");
        }
        return add(new Route("GET", prefix, true, permission, HttpConfiguration.MAX_REQUEST_BYTES, null,
                sync(new ClasspathResources(prefix, loader, classpathRoot))));
    }

    private Registration add(Route route) {
        if (!route.path().startsWith("/")) {
            throw new IllegalArgumentException("An HTTP route's path starts with '/': '" + route.path() + "'");
        }
        if (route.prefix()) {
            if (prefixes.putIfAbsent(route.path(), route) != null) {
                throw new IllegalStateException("Resources at '" + route.path() + "' are registered already.");
            }
            return () -> prefixes.remove(route.path(), route);
        }
        Map<String, Route> byMethod = exact.computeIfAbsent(route.path(), p -> new ConcurrentHashMap<>());
        if (byMethod.putIfAbsent(route.method(), route) != null
                || !route.method().equals(ANY_METHOD) && byMethod.containsKey(ANY_METHOD)) {
            throw new IllegalStateException("Route " + route.method() + " " + route.path() + " is registered already.");
        }
        return () -> exact.computeIfPresent(route.path(), (p, routes) -> {
            routes.remove(route.method(), route);
            return routes.isEmpty() ? null : routes;
        });
    }

    /** The route for {@code method} and {@code path}. */
    Match match(String method, String path) {
        Map<String, Route> byMethod = exact.get(path);
        if (byMethod != null) {
            Route route = byMethod.getOrDefault(method, byMethod.get(ANY_METHOD));
            return new Match(route, route == null ? List.copyOf(new TreeMap<>(byMethod).keySet()) : List.of());
        }
        Route best = null;
        for (Route route : prefixes.values()) {
            if (path.startsWith(route.path()) && (best == null || route.path().length() > best.path().length())) {
                best = route;
            }
        }
        if (best == null) {
            return new Match(null, List.of());
        }
        return best.method().equals(method) ? new Match(best, List.of()) : new Match(null, List.of(best.method()));
    }

    /**
     * The longest request body {@code method path} takes: its route's limit, else (no route: it is answered 404
     * anyway) {@link HttpConfiguration#MAX_REQUEST_BYTES}.
     */
    int maxRequestBytes(String method, String path) {
        Route route = match(method, path).route();
        return route == null ? HttpConfiguration.MAX_REQUEST_BYTES : route.maxRequestBytes();
    }

    /**
     * What a caller whose body is over {@code method path}'s limit can do, for its 413: the setting that raises the
     * limit and its ceiling ({@link #serve}), or, for the listener's own pages, that their limit is fixed.
     */
    String overLimitFix(String method, String path) {
        Route route = match(method, path).route();
        if (route == null || route.limitSetting() == null) {
            return "The limit of the listener's own pages (the console, the admin API, the metrics) is fixed "
                    + "(HttpConfiguration.MAX_REQUEST_BYTES): send a smaller body.";
        }
        return "Send a smaller body, or raise the limit: " + route.limitSetting() + ", now " + route.maxRequestBytes()
                + " bytes (at most " + HttpConfiguration.MAX_ROUTE_REQUEST_BYTES + ").";
    }

    /** Whether {@code method path} has a route (exact, or under a resources prefix). */
    public boolean serves(String method, String path) {
        return match(method, path).route() != null;
    }

    /** The paths served by {@link #serve} (message flows' paths), sorted. */
    public List<String> servedPaths() {
        List<String> paths = new ArrayList<>();
        exact.forEach((path, byMethod) -> {
            if (byMethod.containsKey(ANY_METHOD)) {
                paths.add(path);
            }
        });
        paths.sort(null);
        return paths;
    }

    /** A registered route; closing it removes it (requests already running finish). */
    @FunctionalInterface
    public interface Registration extends AutoCloseable {
        @Override
        void close();
    }
}
