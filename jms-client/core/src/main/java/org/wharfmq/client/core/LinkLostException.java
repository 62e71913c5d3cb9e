package org.wharfmq.client.core;

/**
 * A request's link was lost before its answer came, while the connection reconnects: what the request did on the
 * server is not known. Each caller says what that means for its request (sent again, re-established by the
 * reconnection, or reported in words of its own); it never reaches an application as it is.
 */
public final class LinkLostException extends ClientException {
    private static final long serialVersionUID = 1L;

    public LinkLostException(String message) {
        super(message, null);
    }
}
