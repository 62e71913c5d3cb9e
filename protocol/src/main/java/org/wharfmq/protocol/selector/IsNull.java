package org.wharfmq.protocol.selector;

/**
 * {@code identifier IS [NOT] NULL}: the only predicate that is never UNKNOWN.
 *
 * @param identifier the tested header or property
 * @param negated true for IS NOT NULL
 */
record IsNull(Identifier identifier, boolean negated) implements Expression {

    @Override
    public Object evaluate(SelectorContext message) {
        return (identifier.evaluate(message) == null) != negated ? Boolean.TRUE : Boolean.FALSE;
    }
}
