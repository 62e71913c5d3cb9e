package org.wharfmq.server.admin;

/**
 * A command's failure with a reason of its own for programs to act on (the answer's {@link AdminProtocol#ERROR}), such
 * as {@code REMOTE_DEPLOY_DISABLED}; the message says what and why for the operator.
 */
public class AdminException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String reason;
    private final java.util.Map<String, String> fields;

    /**
     * @param reason  a name in capitals, e.g. {@code REMOTE_DEPLOY_DISABLED}
     * @param message what was refused, why and the fix
     */
    public AdminException(String reason, String message) {
        this(reason, message, java.util.Map.of());
    }

    /**
     * @param fields what a program needs besides the reason, each a field of the failure's answer beside
     *               {@code error} and {@code reason} (e.g. a channel's {@code state})
     */
    public AdminException(String reason, String message, java.util.Map<String, String> fields) {
        super(message);
        this.reason = reason;
        this.fields = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(fields)); // in order
    }

    /** The reason's name. */
    public String reason() {
        return reason;
    }

    /** The failure's own fields of the answer (none by default). */
    public java.util.Map<String, String> fields() {
        return fields;
    }
}
