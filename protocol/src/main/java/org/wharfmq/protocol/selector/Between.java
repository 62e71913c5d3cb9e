package org.wharfmq.protocol.selector;

/**
 * {@code value [NOT] BETWEEN low AND high}, evaluated exactly as the specification's equivalences
 * {@code value >= low AND value <= high} and {@code value < low OR value > high} under three-valued logic, so
 * e.g. {@code 5 BETWEEN NULL AND 3} is FALSE, not UNKNOWN. The tested value is evaluated once.
 *
 * <p>Because each of the two comparisons is FALSE for non-numeric operands, both BETWEEN and NOT BETWEEN are
 * FALSE when the tested property is not a number.
 *
 * @param value the tested expression
 * @param low the inclusive lower bound
 * @param high the inclusive upper bound
 * @param negated true for NOT BETWEEN
 */
record Between(Expression value, Expression low, Expression high, boolean negated) implements Expression {

    @Override
    public Object evaluate(SelectorContext message) {
        Object v = value.evaluate(message);
        Object lo = low.evaluate(message);
        Object hi = high.evaluate(message);
        if (!negated) {
            Boolean aboveLow = Comparison.apply(Comparison.Operator.GE, v, lo);
            if (aboveLow == Boolean.FALSE) {
                return Boolean.FALSE;
            }
            Boolean belowHigh = Comparison.apply(Comparison.Operator.LE, v, hi);
            if (belowHigh == Boolean.FALSE) {
                return Boolean.FALSE;
            }
            return aboveLow == null || belowHigh == null ? null : Boolean.TRUE;
        }
        Boolean belowLow = Comparison.apply(Comparison.Operator.LT, v, lo);
        if (belowLow == Boolean.TRUE) {
            return Boolean.TRUE;
        }
        Boolean aboveHigh = Comparison.apply(Comparison.Operator.GT, v, hi);
        if (aboveHigh == Boolean.TRUE) {
            return Boolean.TRUE;
        }
        return belowLow == null || aboveHigh == null ? null : Boolean.FALSE;
    }
}
