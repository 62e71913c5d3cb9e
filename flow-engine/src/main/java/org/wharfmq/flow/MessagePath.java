package org.wharfmq.flow;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * A value of the message assembly named by a path, compiled once (keep it in a field: it is immutable and
 * thread-safe). The Database nodes bind their SQL parameters with these, and a DatabaseCall node puts the values a
 * procedure gives back at them ({@link #target}, {@link #set}). The forms:
 *
 * <table>
 * <caption>path forms</caption>
 * <tr><th>path</th><th>value</th></tr>
 * <tr><td>{@code UserProperties/NAME}</td><td>a JMS property of the message, as its type (String, Integer, ...)</td></tr>
 * <tr><td>{@code Headers/NAME}</td><td>a JMS header field, e.g. {@code Headers/JMSCorrelationID}</td></tr>
 * <tr><td>{@code Properties/NAME}</td><td>a field of the message's Properties, e.g. {@code Properties/Topic}</td></tr>
 * <tr><td>{@code LocalEnvironment/NAME}, {@code Environment/NAME}</td><td>a field of that folder</td></tr>
 * <tr><td>{@code Body}</td><td>the whole body as text</td></tr>
 * <tr><td>{@code JSON/a/b/0}</td><td>the JSON body at the JSON Pointer {@code /a/b/0}: a text as String, a whole
 * number as Long, another number as BigDecimal, true/false as Boolean, an object or array as its JSON text</td></tr>
 * <tr><td>{@code Records/0/name}</td><td>the records body's field {@code name} of its first record (a JSON
 * Pointer over the array of records), as for JSON</td></tr>
 * <tr><td>{@code XML/Order/Id}</td><td>the XML body's XPath {@code /Order/Id} (any XPath 3.1 expression after
 * {@code XML}): the string value of its first item</td></tr>
 * </table>
 *
 * A path that names nothing (an absent field, element or JSON member, a JSON null) gives null.
 */
public final class MessagePath {

    private enum Kind { USER_PROPERTIES, HEADERS, PROPERTIES, LOCAL_ENVIRONMENT, ENVIRONMENT, BODY, JSON, RECORDS, XML }

    private final String path;
    private final Kind kind;
    private final String field;
    private final JsonPointer pointer;
    private final XPathQuery xpath;

    private MessagePath(String path, Kind kind, String field, JsonPointer pointer, XPathQuery xpath) {
        this.path = path;
        this.kind = kind;
        this.field = field;
        this.pointer = pointer;
        this.xpath = xpath;
    }

    /**
     * Compiles a path (see the class comment for its forms).
     *
     * @throws IllegalArgumentException naming the path, what is wrong and the forms accepted
     */
    public static MessagePath compile(String path) {
        if (path == null || path.isBlank()) {
            throw invalid(path, "it is empty");
        }
        if (path.equals("Body")) {
            return new MessagePath(path, Kind.BODY, null, null, null);
        }
        int slash = path.indexOf('/');
        String root = slash < 0 ? path : path.substring(0, slash);
        String rest = slash < 0 ? "" : path.substring(slash);
        switch (root) {
            case "JSON":
            case "Records":
                try {
                    return new MessagePath(path, root.equals("JSON") ? Kind.JSON : Kind.RECORDS, null,
                            JsonPointer.compile(rest), null);
                } catch (IllegalArgumentException e) {
                    throw invalid(path, "'" + rest + "' is not a JSON Pointer: " + e.getMessage());
                }
            case "XML":
                if (rest.isEmpty()) {
                    throw invalid(path, "XML needs an XPath expression after it, e.g. XML/Order/Id");
                }
                try {
                    return new MessagePath(path, Kind.XML, null, null, XPathQuery.compile(rest));
                } catch (IllegalArgumentException e) {
                    throw invalid(path, e.getMessage());
                }
            default:
                Kind kind = folder(root);
                if (kind == null) {
                    throw invalid(path, "it does not start with a known part of the message");
                }
                String name = rest.length() > 1 ? rest.substring(1) : "";
                if (name.isEmpty() || name.indexOf('/') >= 0) {
                    throw invalid(path, root + " needs one field name after it, e.g. " + root + "/orderId");
                }
                return new MessagePath(path, kind, name, null, null);
        }
    }

    /**
     * Compiles a path a value can be put at ({@link #set}): {@code LocalEnvironment/NAME}, {@code Environment/NAME} or
     * {@code UserProperties/NAME}.
     *
     * @throws IllegalArgumentException naming the path, what is wrong and the forms accepted
     */
    public static MessagePath target(String path) {
        MessagePath target = compile(path);
        if (target.kind != Kind.LOCAL_ENVIRONMENT && target.kind != Kind.ENVIRONMENT
                && target.kind != Kind.USER_PROPERTIES) {
            throw new IllegalArgumentException("Invalid target path '" + path + "': a value can be put at "
                    + "LocalEnvironment/NAME, Environment/NAME or UserProperties/NAME only.");
        }
        return target;
    }

    private static Kind folder(String root) {
        switch (root) {
            case "UserProperties": return Kind.USER_PROPERTIES;
            case "Headers": return Kind.HEADERS;
            case "Properties": return Kind.PROPERTIES;
            case "LocalEnvironment": return Kind.LOCAL_ENVIRONMENT;
            case "Environment": return Kind.ENVIRONMENT;
            default: return null;
        }
    }

    private static IllegalArgumentException invalid(String path, String why) {
        return new IllegalArgumentException("Invalid message path '" + path + "': " + why + ". A path is one of "
                + "UserProperties/NAME, Headers/NAME, Properties/NAME, LocalEnvironment/NAME, Environment/NAME, Body, "
                + "JSON/json/pointer, Records/N/field, XML/xpath/expression.");
    }

    /** The path as written. */
    public String path() {
        return path;
    }

    /**
     * The value the path names in {@code assembly}, or null when it names nothing.
     *
     * @throws IllegalStateException        when the path reads a body of another domain (JSON or XML)
     * @throws java.io.UncheckedIOException when the JSON body is not valid JSON
     * @throws XmlParseException            when the XML body is not well-formed
     */
    public Object value(MessageAssembly assembly) {
        FlowMessage message = assembly.message();
        switch (kind) {
            case USER_PROPERTIES: return message.userProperties().get(field);
            case HEADERS: return message.headers().get(field);
            case PROPERTIES: return message.properties().get(field);
            case LOCAL_ENVIRONMENT: return assembly.localEnvironment().get(field);
            case ENVIRONMENT: return assembly.environment().get(field);
            case BODY: return message.bodyText();
            case JSON: return json(message.json().at(pointer));
            case RECORDS: return json(message.records().at(pointer));
            default: return xpath.string(message);
        }
    }

    /**
     * Puts {@code value} at this path of {@code assembly} (writable), a path of {@link #target}'s forms; null removes
     * the field. A user property takes a JMS property's types (String, Boolean, the whole and floating-point numbers);
     * another value (a BigDecimal, a date) goes there as its text.
     *
     * @throws IllegalStateException when the path is not one a value can be put at
     */
    public void set(MessageAssembly assembly, Object value) {
        switch (kind) {
            case LOCAL_ENVIRONMENT -> assembly.localEnvironment().set(field, value);
            case ENVIRONMENT -> assembly.environment().set(field, value);
            case USER_PROPERTIES -> assembly.message().setUserProperty(field, jmsProperty(value));
            default -> throw new IllegalStateException("A value cannot be put at '" + path + "': only at "
                    + "LocalEnvironment/NAME, Environment/NAME or UserProperties/NAME.");
        }
    }

    private static Object jmsProperty(Object value) {
        if (value == null || value instanceof String || value instanceof Boolean || value instanceof Byte
                || value instanceof Short || value instanceof Integer || value instanceof Long
                || value instanceof Float || value instanceof Double) {
            return value;
        }
        return value.toString();
    }

    private static Object json(JsonNode node) {
        if (node == null || node.isMissingNode() || node.isNull()) {
            return null;
        }
        if (node.isTextual()) {
            return node.textValue();
        }
        if (node.isIntegralNumber() && node.canConvertToLong()) {
            return node.longValue();
        }
        if (node.isNumber()) {
            return node.decimalValue();
        }
        if (node.isBoolean()) {
            return node.booleanValue();
        }
        return node.toString();
    }

    @Override
    public String toString() {
        return path;
    }
}
