package org.wharfmq.server.admin;

import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.security.AdminSender;
import org.wharfmq.server.security.Identity;

import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * One admin request as a command sees it: its name, its arguments (the request's {@code Wharf...} properties), the
 * bytes of a BytesMessage body (a flow jar), who sent it and from where. Read once from the message (or made by
 * another face of the admin view, the web console, with {@link #of(String, String, String, Map)}), so a command
 * never touches a message.
 */
public final class AdminRequest {

    private static final String ARGUMENT_PREFIX = "Wharf";

    private final String command;
    private final String user;
    private final String origin;
    private final Map<String, Object> arguments;
    private final byte[] body;

    private AdminRequest(String command, String user, String origin, Map<String, Object> arguments, byte[] body) {
        this.command = command;
        this.user = user;
        this.origin = origin;
        this.arguments = arguments;
        this.body = body;
    }

    /**
     * Reads a request off its message: the properties as sent, the body of a BytesMessage (empty for none), and as its
     * user the sender the queue manager stamped on it ({@link AdminSender}), never its JMSXUserID.
     */
    static AdminRequest of(WireMessage message) {
        Map<String, Object> arguments = new TreeMap<>();
        message.properties.forEach((name, value) -> {
            if (name.startsWith(ARGUMENT_PREFIX) && !name.equals(AdminProtocol.COMMAND)) {
                arguments.put(name, value);
            }
        });
        byte[] body = null;
        if (message.bodyType == BodyType.BYTES) {
            body = message.body == null ? new byte[0] : message.body;
        }
        Object command = message.properties.get(AdminProtocol.COMMAND);
        Identity sender = AdminSender.of(message.properties);
        String user = sender == null || sender.anonymous() ? null : sender.user();
        return new AdminRequest(command == null ? null : command.toString(), user, "request " + message.messageId,
                Collections.unmodifiableMap(arguments), body);
    }

    /**
     * A request that did not come as a message: another face of the admin view (the web console) runs a command
     * through {@link AdminPlugin#run} or {@link AdminPlugin#read}.
     *
     * @param user      who asks (already authenticated and allowed by that face); null for an anonymous caller
     * @param origin    where it came from, for the audit line ({@code HTTP from /10.0.0.7:51234})
     * @param arguments the arguments by property name ({@link AdminProtocol#QUEUE}, ...)
     */
    public static AdminRequest of(String command, String user, String origin, Map<String, Object> arguments) {
        return new AdminRequest(command, user, origin, Collections.unmodifiableMap(new TreeMap<>(arguments)), null);
    }

    /** The property that carries argument {@code name}: {@code maxDepth} is {@code WharfMaxDepth} ({@link #nameOf}). */
    public static String propertyOf(String name) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("An argument needs a name.");
        }
        return ARGUMENT_PREFIX + Character.toUpperCase(name.charAt(0)) + name.substring(1);
    }

    /** The command's name, or null when the request names none. */
    public String command() {
        return command;
    }

    /**
     * Who sent it: the user the queue manager stamped on the request ({@link AdminSender}) or the console's caller;
     * null for an anonymous client or the queue manager's own connection.
     */
    public String user() {
        return user;
    }

    /** Where it came from, for the audit line: {@code request ID:...} (its JMSMessageID) or the face's own words. */
    public String origin() {
        return origin;
    }

    /** The arguments by property name, sorted. */
    public Map<String, Object> arguments() {
        return arguments;
    }

    /** A string argument, or null when absent or blank. */
    public String string(String property) {
        Object value = arguments.get(property);
        return value == null || value.toString().isBlank() ? null : value.toString();
    }

    /**
     * A string argument that must be there.
     *
     * @param what what it is, for the error ("a flow name")
     * @throws IllegalArgumentException when it is absent or blank
     */
    public String required(String property, String what) {
        String value = string(property);
        if (value == null) {
            throw new IllegalArgumentException("The command needs " + what + ".");
        }
        return value;
    }

    /**
     * A whole-number argument, or null when absent.
     *
     * @throws IllegalArgumentException when it is not a whole number
     */
    public Long number(String property) {
        Object value = arguments.get(property);
        if (value == null) {
            return null;
        }
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        try {
            return Long.parseLong(value.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(nameOf(property) + " must be a whole number, not '" + value + "'.");
        }
    }

    /**
     * A yes/no argument: true for a boolean true or the text on, true or yes; false when absent.
     *
     * @throws IllegalArgumentException for any other text
     */
    public boolean flag(String property) {
        Object value = arguments.get(property);
        if (value == null) {
            return false;
        }
        if (value instanceof Boolean b) {
            return b;
        }
        return switch (value.toString().trim().toLowerCase(Locale.ROOT)) {
            case "on", "true", "yes" -> true;
            case "off", "false", "no" -> false;
            default -> throw new IllegalArgumentException("Expected on or off, got '" + value + "'.");
        };
    }

    /** An argument's name for people: {@code WharfMaxDepth} is {@code maxDepth}. */
    static String nameOf(String property) {
        String name = property.substring(ARGUMENT_PREFIX.length());
        return name.isEmpty() ? property : Character.toLowerCase(name.charAt(0)) + name.substring(1);
    }

    /** The body of a BytesMessage request, or null. */
    public byte[] body() {
        return body;
    }
}
