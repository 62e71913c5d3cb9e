package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;

/**
 * A failure of the core client: the server refused a request ({@link #code()} is the protocol's error code from its
 * ERROR frame, and the message the server's, which names what was refused and why), or the client could not do what
 * was asked (no code: the server could not be reached, TLS failed; the message says what to check, the cause is the
 * I/O failure). An API on top of the core maps it to its own exceptions (the JMS facade: {@code JmsErrors}).
 */
public class ClientException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient ErrorCode code;

    /** A refusal with the protocol's {@code code}. */
    public ClientException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    /** A failure with the protocol's {@code code} (null for none) and a cause. */
    public ClientException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /** A failure of the client's own, without a protocol error code. */
    public ClientException(String message, Throwable cause) {
        super(message, cause);
        this.code = null;
    }

    /** The server's refusal in an ERROR frame (its message, or the code's name when it sent none). */
    public static ClientException of(Frame.Error error) {
        String message = error.message();
        return new ClientException(error.code(), message == null || message.isEmpty() ? error.code().name() : message);
    }

    /** The protocol's error code of a refusal; null for a failure of the client's own. */
    public ErrorCode code() {
        return code;
    }
}
