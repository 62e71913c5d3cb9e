package org.wharfmq.jms.message;

import javax.jms.MessageFormatException;

/**
 * The conversion table of MapMessage and StreamMessage values (JMS 2.0 sections 3.11.3 and 3.11.4): a value
 * written as one type may be read as another only where the table allows; String converts both ways through
 * {@code valueOf}/{@code toString}. A null value reads the way {@code valueOf((String) null)} does: false for
 * boolean, NumberFormatException for integral types, NullPointerException for char, float and double.
 * Unlike properties, bodies also hold char and byte[]: char reads only as char or String, byte[] only as byte[].
 */
final class BodyConversions {
    private BodyConversions() {
    }

    static boolean toBoolean(Object v, String where) throws MessageFormatException {
        if (v instanceof Boolean b) {
            return b;
        }
        if (v == null || v instanceof String) {
            return Boolean.parseBoolean((String) v);
        }
        throw cannotConvert(v, "boolean", where);
    }

    static byte toByte(Object v, String where) throws MessageFormatException {
        if (v instanceof Byte b) {
            return b;
        }
        if (v == null || v instanceof String) {
            return Byte.parseByte((String) v);
        }
        throw cannotConvert(v, "byte", where);
    }

    static short toShort(Object v, String where) throws MessageFormatException {
        if (v instanceof Short || v instanceof Byte) {
            return ((Number) v).shortValue();
        }
        if (v == null || v instanceof String) {
            return Short.parseShort((String) v);
        }
        throw cannotConvert(v, "short", where);
    }

    static char toChar(Object v, String where) throws MessageFormatException {
        if (v instanceof Character c) {
            return c;
        }
        if (v == null) {
            throw new NullPointerException(where + " is null, which cannot be read as char");
        }
        throw cannotConvert(v, "char", where);
    }

    static int toInt(Object v, String where) throws MessageFormatException {
        if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return ((Number) v).intValue();
        }
        if (v == null || v instanceof String) {
            return Integer.parseInt((String) v);
        }
        throw cannotConvert(v, "int", where);
    }

    static long toLong(Object v, String where) throws MessageFormatException {
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v == null || v instanceof String) {
            return Long.parseLong((String) v);
        }
        throw cannotConvert(v, "long", where);
    }

    static float toFloat(Object v, String where) throws MessageFormatException {
        if (v instanceof Float f) {
            return f;
        }
        if (v == null || v instanceof String) {
            return Float.valueOf((String) v); // valueOf(null) throws NullPointerException, as JMS specifies
        }
        throw cannotConvert(v, "float", where);
    }

    static double toDouble(Object v, String where) throws MessageFormatException {
        if (v instanceof Double || v instanceof Float) {
            return ((Number) v).doubleValue();
        }
        if (v == null || v instanceof String) {
            return Double.valueOf((String) v);
        }
        throw cannotConvert(v, "double", where);
    }

    static String toStringValue(Object v, String where) throws MessageFormatException {
        if (v instanceof byte[]) {
            throw cannotConvert(v, "String", where);
        }
        return v == null ? null : v.toString();
    }

    static byte[] toBytes(Object v, String where) throws MessageFormatException {
        if (v == null || v instanceof byte[]) {
            return (byte[]) v;
        }
        throw cannotConvert(v, "byte[]", where);
    }

    /** A value as returned by getObject/readObject: byte arrays are copied, so the body cannot be changed through them. */
    static Object toObject(Object v) {
        return v instanceof byte[] b ? b.clone() : v;
    }

    private static MessageFormatException cannotConvert(Object v, String type, String where) {
        String held = v instanceof byte[] ? "byte[]" : v.getClass().getSimpleName() + " (" + v + ")";
        return new MessageFormatException(where + " holds a " + held + ", which cannot be read as " + type);
    }
}
