package org.wharfmq.flow.records;

/**
 * A field of a fixed-length record: its name, where it starts in the record (byte offset from 0), its length in
 * bytes, its type, and how a shorter value is padded: strings left-justified with spaces, numbers right-justified
 * with zeros by default.
 *
 * @param name     the field's name in the tree
 * @param offset   its first byte in the record, from 0
 * @param length   its length in bytes
 * @param type     how its text becomes a value in the tree
 * @param padding  the character that fills what the value leaves free
 * @param justify  which side the value keeps
 * @param scale    decimals of a DECIMAL written (its value rounded to them is refused; -1: as it is)
 * @param pattern  the layout of a DATE ({@code java.time} pattern, default {@code yyyyMMdd}); the tree holds it as
 *                 ISO {@code yyyy-MM-dd}
 */
public record FixedField(String name, int offset, int length, Type type, char padding, Justify justify, int scale,
                         String pattern) {

    /** How a field's text becomes a value in the tree. */
    public enum Type {
        /** Text, padding removed. */
        STRING,
        /** A whole number (a JSON integer in the tree). */
        INT,
        /** A decimal number with a point (a JSON number in the tree). */
        DECIMAL,
        /** A date in the field's pattern (ISO text in the tree). */
        DATE
    }

    /** Which side of the field a shorter value keeps. */
    public enum Justify {
        LEFT, RIGHT
    }

    public FixedField {
        if (name == null || name.isBlank() || type == null || justify == null) {
            throw new IllegalArgumentException("A fixed-length field needs a name, a type and a justification.");
        }
        if (offset < 0 || length < 1) {
            throw new IllegalArgumentException("Field '" + name + "': offset must be at least 0 and length at least "
                    + "1, were " + offset + " and " + length + ".");
        }
        if (type == Type.DATE && (pattern == null || pattern.isBlank())) {
            throw new IllegalArgumentException("Field '" + name + "': a DATE needs a pattern, e.g. yyyyMMdd.");
        }
    }

    /** A field of {@code type} with its type's padding: strings left with spaces, others right with zeros. */
    public static FixedField of(String name, int offset, int length, Type type) {
        boolean text = type == Type.STRING;
        return new FixedField(name, offset, length, type, text ? ' ' : '0', text ? Justify.LEFT : Justify.RIGHT,
                -1, type == Type.DATE ? "yyyyMMdd" : null);
    }

    /** This field padded with {@code padding}. */
    public FixedField padding(char padding) {
        return new FixedField(name, offset, length, type, padding, justify, scale, pattern);
    }

    /** This field justified to {@code side}. */
    public FixedField justify(Justify side) {
        return new FixedField(name, offset, length, type, padding, side, scale, pattern);
    }

    /** This DECIMAL written with {@code decimals} decimals. */
    public FixedField scale(int decimals) {
        return new FixedField(name, offset, length, type, padding, justify, decimals, pattern);
    }

    /** This DATE in {@code datePattern}. */
    public FixedField pattern(String datePattern) {
        return new FixedField(name, offset, length, type, padding, justify, scale, datePattern);
    }

    /** The first byte after the field. */
    public int end() {
        return offset + length;
    }
}
