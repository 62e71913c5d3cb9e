package org.wharfmq.server.admin;

/**
 * A command's failure with a reason of its own for programs to act on (the answer's {@link AdminProtocol#ERROR}), such
 * as {@code REMOTE_DEPLOY_DISABLED}; the message says what and why for the operator.
 */
public class AdminException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String reason;

    /**
     * @param reason  a name in capitals, e.g. {@code REMOTE_DEPLOY_DISABLED}
     * @param message what was refused, why and the fix
     */
    public AdminException(String reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** The reason's name. */
    public String reason() {
        return reason;
    }
}
