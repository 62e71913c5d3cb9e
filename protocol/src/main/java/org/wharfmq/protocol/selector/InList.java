package org.wharfmq.protocol.selector;

import java.util.Set;

/**
 * {@code identifier [NOT] IN ('a', 'b', ...)}.
 *
 * <p>NULL gives UNKNOWN. A non-String value gives FALSE for both IN and NOT IN: the specification only defines IN
 * for string values, and its rule for non-like types is that "the value of the operation is false".
 *
 * @param identifier the tested property
 * @param values the immutable set of string literals
 * @param negated true for NOT IN
 */
record InList(Identifier identifier, Set<String> values, boolean negated) implements Expression {

    InList {
        values = Set.copyOf(values);
    }

    @Override
    public Object evaluate(SelectorContext message) {
        Object value = identifier.evaluate(message);
        if (value == null) {
            return null;
        }
        if (!(value instanceof String s)) {
            return Boolean.FALSE;
        }
        return values.contains(s) != negated ? Boolean.TRUE : Boolean.FALSE;
    }
}
