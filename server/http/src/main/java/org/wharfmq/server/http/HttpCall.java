package org.wharfmq.server.http;

import org.wharfmq.server.security.Identity;

import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * One HTTP request as a {@link HttpHandler} sees it: decoded, whole (the body at most its
 * route's limit, by default {@link HttpConfiguration#MAX_REQUEST_BYTES}), and from whom.
 *
 * @param method  {@code GET}, {@code POST} (any method, for a route of {@link HttpRoutes#serve})
 * @param path    the decoded path, without the query ({@code /metrics})
 * @param query   the query's parameters by name, each with its values in order
 * @param headers the request's headers by lower-case name (the last value of a repeated one)
 * @param body    the body's bytes; empty for none
 * @param who     who sent it: the user it authenticated as, {@link Identity#ANONYMOUS}, or the user of a TLS client
 *                certificate
 * @param from    where it came from (the caller's address), for the audit log
 */
public record HttpCall(String method, String path, Map<String, List<String>> query, Map<String, String> headers,
                       byte[] body, Identity who, SocketAddress from) {

    public HttpCall {
        query = Map.copyOf(query);
        headers = Map.copyOf(headers);
    }

    /** The first value of query parameter {@code name}, or null when it is not there. */
    public String parameter(String name) {
        List<String> values = query.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** Header {@code name} (any case), or null. */
    public String header(String name) {
        return headers.get(name.toLowerCase(java.util.Locale.ROOT));
    }

    /** The body as UTF-8 text. */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
