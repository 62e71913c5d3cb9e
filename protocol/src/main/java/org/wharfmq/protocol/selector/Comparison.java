package org.wharfmq.protocol.selector;

/**
 * A comparison operator applied to two operands.
 *
 * <p>Semantics (JMS 2.0 section 3.8.1.2): if either operand is NULL the result is UNKNOWN. Otherwise, following
 * "if the comparison of non-like type values is attempted, the value of the operation is false", the result is
 * FALSE for both {@code =} and {@code <>} when the operands are not of like types (numeric/numeric,
 * string/string, boolean/boolean), and FALSE for an ordering operator unless both operands are numeric. Numbers
 * are compared after Java binary numeric promotion, so {@code 2 = 2.0} is TRUE and NaN compares unequal to
 * everything, including itself.
 *
 * @param operator the operator
 * @param left the left operand
 * @param right the right operand
 */
record Comparison(Operator operator, Expression left, Expression right) implements Expression {

    /** The comparison operators of the selector grammar. */
    enum Operator {
        EQ("="),
        NE("<>"),
        LT("<"),
        LE("<="),
        GT(">"),
        GE(">=");

        private final String symbol;

        Operator(String symbol) {
            this.symbol = symbol;
        }

        String symbol() {
            return symbol;
        }

        /** Only = and <> are defined for strings and booleans. */
        boolean isEquality() {
            return this == EQ || this == NE;
        }
    }

    @Override
    public Object evaluate(SelectorContext message) {
        Object l = left.evaluate(message);
        if (l == null) {
            return null;
        }
        Object r = right.evaluate(message);
        if (r == null) {
            return null;
        }
        return apply(operator, l, r);
    }

    /**
     * Applies an operator to already evaluated operands; shared with {@link Between} so that BETWEEN evaluates its
     * tested expression only once.
     *
     * @return TRUE, FALSE, or null (UNKNOWN) when either operand is null
     */
    static Boolean apply(Operator operator, Object l, Object r) {
        if (l == null || r == null) {
            return null;
        }
        if (Values.isNumeric(l) && Values.isNumeric(r)) {
            return compareNumbers(operator, (Number) l, (Number) r) ? Boolean.TRUE : Boolean.FALSE;
        }
        if (!operator.isEquality()) {
            return Boolean.FALSE;
        }
        boolean like = (l instanceof String && r instanceof String) || (l instanceof Boolean && r instanceof Boolean);
        if (!like) {
            return Boolean.FALSE;
        }
        boolean equal = l.equals(r);
        return equal == (operator == Operator.EQ) ? Boolean.TRUE : Boolean.FALSE;
    }

    private static boolean compareNumbers(Operator operator, Number l, Number r) {
        if (Values.isExact(l) && Values.isExact(r)) {
            long a = l.longValue();
            long b = r.longValue();
            return switch (operator) {
                case EQ -> a == b;
                case NE -> a != b;
                case LT -> a < b;
                case LE -> a <= b;
                case GT -> a > b;
                case GE -> a >= b;
            };
        }
        double a = l.doubleValue();
        double b = r.doubleValue();
        return switch (operator) {
            case EQ -> a == b;
            case NE -> a != b;
            case LT -> a < b;
            case LE -> a <= b;
            case GT -> a > b;
            case GE -> a >= b;
        };
    }
}
