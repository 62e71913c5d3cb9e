package org.wharfmq.server;

import org.wharfmq.protocol.frame.ErrorCode;

/**
 * A request failed for a reason the client must hear about: the code and message travel in an ERROR frame and
 * become a JMS exception on the client. The message is written for the application developer, so it names the
 * queue, the limit or the setting involved.
 *
 * <p>Carries no stack trace: it is an expected answer (a full queue under load may produce many), not a bug.
 */
public final class WharfException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient ErrorCode code;

    /** Creates an exception to be answered with {@code code} and {@code message}. */
    public WharfException(ErrorCode code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    /** The error code the client receives. */
    public ErrorCode code() {
        return code;
    }

    /** Shorthand for {@link ErrorCode#ILLEGAL_STATE}. */
    public static WharfException illegalState(String message) {
        return new WharfException(ErrorCode.ILLEGAL_STATE, message);
    }
}
