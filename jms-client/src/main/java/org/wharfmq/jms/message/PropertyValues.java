package org.wharfmq.jms.message;

import javax.jms.MessageFormatException;

/**
 * The JMS property rules (JMS 2.0 section 3.5): which names are valid, which value types may be stored, and the
 * conversion table for reading a value as another type. A missing property reads as null, so it converts the way
 * {@code valueOf(null)} does: false for boolean, NumberFormatException for integral types, NullPointerException
 * for float and double.
 */
public final class PropertyValues {

    private PropertyValues() {
    }

    /**
     * Checks that a name can be used for a property: a Java identifier not in the {@code JMS} namespace reserved for
     * headers (JMSX and JMS_ vendor names are allowed).
     *
     * <p>A selector keyword ({@code NULL}, {@code TRUE}, {@code AND}, {@code BETWEEN}, ...) is a valid name, as in
     * ActiveMQ and Artemis: the Jakarta Messaging TCK tests that a null or empty name is refused, not the selector
     * identifier rule of JMS 2.0 section 3.5.1 (see docs/jms-client.md). No selector can name such a property.
     *
     * @throws IllegalArgumentException when it cannot
     */
    public static void checkName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("A property name must not be null or empty");
        }
        if (!Character.isJavaIdentifierStart(name.charAt(0))) {
            throw invalidName(name, "it must start with a letter, '_' or '$'");
        }
        for (int i = 1; i < name.length(); i++) {
            if (!Character.isJavaIdentifierPart(name.charAt(i))) {
                throw invalidName(name, "character '" + name.charAt(i) + "' is not allowed in an identifier");
            }
        }
        if (name.startsWith("JMS") && !name.startsWith("JMSX") && !name.startsWith("JMS_")) {
            throw invalidName(name, "names starting with JMS are reserved for header fields (JMSX and JMS_ are allowed)");
        }
    }

    private static IllegalArgumentException invalidName(String name, String why) {
        return new IllegalArgumentException("'" + name + "' is not a valid JMS property name: " + why);
    }

    /**
     * Checks a value given to {@code setObjectProperty}: boxed primitives (other than Character) and String.
     *
     * @throws MessageFormatException for any other type
     */
    public static void checkValue(String name, Object value) throws MessageFormatException {
        if (value == null || value instanceof String || value instanceof Integer || value instanceof Long
                || value instanceof Boolean || value instanceof Double || value instanceof Float
                || value instanceof Short || value instanceof Byte) {
            return;
        }
        throw new MessageFormatException("Property " + name + " cannot hold a " + value.getClass().getName()
                + ": only Boolean, Byte, Short, Integer, Long, Float, Double and String are allowed");
    }

    /**
     * Checks the types the JMS specification gives the JMSX properties an application may set: JMSXGroupID is a
     * String, JMSXGroupSeq an int. Other JMSX names are stored as given (a bridge copying a received message's
     * properties must not fail on JMSXDeliveryCount); the provider-set ones are replaced on send and on receipt.
     *
     * @throws MessageFormatException for a value of the wrong type
     */
    public static void checkJmsxValue(String name, Object value) throws MessageFormatException {
        if (!name.startsWith("JMSX")) {
            return;
        }
        switch (name) {
            case "JMSXGroupID" -> {
                if (value != null && !(value instanceof String)) {
                    throw new MessageFormatException("JMSXGroupID must be a String, not a " + value.getClass().getSimpleName());
                }
            }
            case "JMSXGroupSeq" -> {
                if (!(value instanceof Integer)) {
                    throw new MessageFormatException("JMSXGroupSeq must be an int, not "
                            + (value == null ? "null" : "a " + value.getClass().getSimpleName()));
                }
            }
            default -> {
                // no type rule for the others
            }
        }
    }

    /** Reads a property value as boolean. */
    public static boolean toBoolean(String name, Object v) throws MessageFormatException {
        if (v instanceof Boolean b) {
            return b;
        }
        if (v == null || v instanceof String) {
            return Boolean.parseBoolean((String) v);
        }
        throw cannotConvert(name, v, "boolean");
    }

    /** Reads a property value as byte. */
    public static byte toByte(String name, Object v) throws MessageFormatException {
        if (v instanceof Byte b) {
            return b;
        }
        if (v == null || v instanceof String) {
            return Byte.parseByte((String) v);
        }
        throw cannotConvert(name, v, "byte");
    }

    /** Reads a property value as short. */
    public static short toShort(String name, Object v) throws MessageFormatException {
        if (v instanceof Short s) {
            return s;
        }
        if (v instanceof Byte b) {
            return b;
        }
        if (v == null || v instanceof String) {
            return Short.parseShort((String) v);
        }
        throw cannotConvert(name, v, "short");
    }

    /** Reads a property value as int. */
    public static int toInt(String name, Object v) throws MessageFormatException {
        if (v instanceof Integer i) {
            return i;
        }
        if (v instanceof Short || v instanceof Byte) {
            return ((Number) v).intValue();
        }
        if (v == null || v instanceof String) {
            return Integer.parseInt((String) v);
        }
        throw cannotConvert(name, v, "int");
    }

    /** Reads a property value as long. */
    public static long toLong(String name, Object v) throws MessageFormatException {
        if (v instanceof Long l) {
            return l;
        }
        if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v == null || v instanceof String) {
            return Long.parseLong((String) v);
        }
        throw cannotConvert(name, v, "long");
    }

    /** Reads a property value as float. */
    public static float toFloat(String name, Object v) throws MessageFormatException {
        if (v instanceof Float f) {
            return f;
        }
        if (v == null || v instanceof String) {
            return Float.valueOf((String) v); // valueOf(null) throws NullPointerException, as JMS specifies
        }
        throw cannotConvert(name, v, "float");
    }

    /** Reads a property value as double. */
    public static double toDouble(String name, Object v) throws MessageFormatException {
        if (v instanceof Double d) {
            return d;
        }
        if (v instanceof Float f) {
            return f;
        }
        if (v == null || v instanceof String) {
            return Double.valueOf((String) v);
        }
        throw cannotConvert(name, v, "double");
    }

    /** Reads a property value as String: every type converts. */
    public static String toStringValue(Object v) {
        return v == null ? null : v.toString();
    }

    private static MessageFormatException cannotConvert(String name, Object v, String type) {
        return new MessageFormatException("Property " + name + " holds a " + v.getClass().getSimpleName()
                + " (" + v + "), which cannot be read as " + type);
    }
}
