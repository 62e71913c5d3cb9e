package org.wharfmq.flow.node;

import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * A service answered an HTTP Request node with a 4xx or 5xx status. Its text names the status, the method and
 * URL, and the response body's first bytes (at most {@link #BODY_PREFIX_BYTES}, control characters shown as
 * {@code ?}), so the ExceptionList says what the service said.
 */
public final class HttpStatusException extends Exception {

    /** How many bytes of the response body the exception's text shows. */
    public static final int BODY_PREFIX_BYTES = 256;

    private final int status;
    private final URI uri;

    /** A failure for {@code status} from {@code method uri} whose response body was {@code body}. */
    public HttpStatusException(int status, String method, URI uri, byte[] body) {
        super("HTTP " + status + " from " + method + " " + uri + ": " + prefix(body));
        this.status = status;
        this.uri = uri;
    }

    /** The response's status code. */
    public int status() {
        return status;
    }

    /** The URL called. */
    public URI uri() {
        return uri;
    }

    private static String prefix(byte[] body) {
        if (body.length == 0) {
            return "(empty body)";
        }
        int length = Math.min(body.length, BODY_PREFIX_BYTES);
        String text = new String(body, 0, length, StandardCharsets.UTF_8);
        StringBuilder sb = new StringBuilder(text.length() + 3);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            sb.append(Character.isISOControl(c) && c != '\t' ? '?' : c);
        }
        return length < body.length ? sb.append("...").toString() : sb.toString();
    }
}
