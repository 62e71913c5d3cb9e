package org.wharfmq.protocol.selector;

/**
 * Unary minus, or unary plus when {@code negate} is false. Unary plus still exists as a node because it must turn
 * a non-numeric property value into NULL, like any other arithmetic.
 *
 * @param negate true for minus, false for plus
 * @param operand the operand
 */
record Negation(boolean negate, Expression operand) implements Expression {

    @Override
    public Object evaluate(SelectorContext message) {
        Object value = operand.evaluate(message);
        if (Values.isExact(value)) {
            return negate ? -((Number) value).longValue() : value;
        }
        if (Values.isApproximate(value)) {
            return negate ? -((Number) value).doubleValue() : value;
        }
        return null;
    }
}
