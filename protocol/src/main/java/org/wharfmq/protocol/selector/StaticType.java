package org.wharfmq.protocol.selector;

/**
 * What the parser knows about an expression's value before any message is seen; used to reject selectors the
 * specification's grammar does not allow (arithmetic on strings, LIKE on numbers, ...).
 */
enum StaticType {
    BOOLEAN,
    NUMERIC,
    STRING,
    /** A property whose type is only known per message. */
    DYNAMIC;

    /** Whether a value of this type may appear where {@code required} is expected. */
    boolean compatibleWith(StaticType required) {
        return this == required || this == DYNAMIC;
    }

    /** Lower-case name for error messages. */
    String describe() {
        return switch (this) {
            case BOOLEAN -> "boolean";
            case NUMERIC -> "numeric";
            case STRING -> "string";
            case DYNAMIC -> "property";
        };
    }
}
