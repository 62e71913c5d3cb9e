package org.wharfmq.protocol.selector;

/**
 * {@code identifier [NOT] LIKE 'pattern' [ESCAPE 'c']} with the pattern compiled at parse time.
 *
 * <p>NULL gives UNKNOWN; a non-String value gives FALSE for both LIKE and NOT LIKE, for the same reason as
 * {@link InList}.
 *
 * @param identifier the tested property
 * @param pattern the compiled pattern
 * @param negated true for NOT LIKE
 */
record Like(Identifier identifier, LikePattern pattern, boolean negated) implements Expression {

    @Override
    public Object evaluate(SelectorContext message) {
        Object value = identifier.evaluate(message);
        if (value == null) {
            return null;
        }
        if (!(value instanceof String s)) {
            return Boolean.FALSE;
        }
        return pattern.matches(s) != negated ? Boolean.TRUE : Boolean.FALSE;
    }
}
