package org.wharfmq.protocol.selector;

/**
 * A constant: String, Long, Double or Boolean.
 *
 * @param value the boxed constant, created once at parse time so evaluation does not allocate
 */
record Literal(Object value) implements Expression {

    @Override
    public Object evaluate(SelectorContext message) {
        return value;
    }
}
