package org.wharfmq.protocol.selector;

/**
 * Runtime value classification shared by the expression nodes.
 *
 * <p>Only the types a JMS property can hold are recognised; any other object a {@link SelectorContext} might
 * return behaves like a value of an unlike type (comparisons are false, arithmetic yields NULL).
 */
final class Values {

    private Values() {
    }

    /** Byte, Short, Integer or Long: computed with long arithmetic. */
    static boolean isExact(Object value) {
        return value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte;
    }

    /** Float or Double: computed with double arithmetic. */
    static boolean isApproximate(Object value) {
        return value instanceof Double || value instanceof Float;
    }

    static boolean isNumeric(Object value) {
        return isExact(value) || isApproximate(value);
    }

    /**
     * Interprets a value in a logical context. Anything but a Boolean (including a non-boolean property used as a
     * condition) is UNKNOWN; the result is always one of the canonical constants so callers may compare by
     * identity.
     */
    static Boolean toLogical(Object value) {
        if (value instanceof Boolean b) {
            return b ? Boolean.TRUE : Boolean.FALSE;
        }
        return null;
    }
}
