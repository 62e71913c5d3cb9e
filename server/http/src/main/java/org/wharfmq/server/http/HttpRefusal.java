package org.wharfmq.server.http;

/**
 * A request a handler refuses with an HTTP status of its choice (4xx): the message is the answer's text, so it names
 * what was refused, why and the fix. Other exceptions map to statuses as {@link HttpRoutes} describes.
 */
public final class HttpRefusal extends RuntimeException {

    private final int status;

    /**
     * @param status  the HTTP status, 400 to 599
     * @param message what was refused, why, and the fix
     */
    public HttpRefusal(int status, String message) {
        super(message, null, false, false);
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("a refusal's status is 4xx or 5xx, not " + status);
        }
        this.status = status;
    }

    /** The HTTP status. */
    public int status() {
        return status;
    }
}
