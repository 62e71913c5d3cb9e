package org.wharfmq.client.core;

/**
 * A request's answer did not come within {@code requestTimeout} while its link stayed up: the server may still act on
 * it. Callers whose request changes state on the server (a COMMIT) say what that means; others pass it on as it is.
 */
public final class RequestTimeoutException extends ClientException {
    private static final long serialVersionUID = 1L;

    public RequestTimeoutException(String message) {
        super(message, null);
    }
}
