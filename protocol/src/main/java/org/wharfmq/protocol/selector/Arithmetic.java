package org.wharfmq.protocol.selector;

/**
 * A binary arithmetic operation with Java's binary numeric promotion: long arithmetic when both operands are exact,
 * double arithmetic otherwise. Overflow wraps as in Java.
 *
 * <p>NULL in, NULL out. A non-numeric value (only possible for a property) also yields NULL rather than an
 * exception, and so does integer division by zero, because a message must never break delivery.
 *
 * @param operator the operation
 * @param left the left operand
 * @param right the right operand
 */
record Arithmetic(Operator operator, Expression left, Expression right) implements Expression {

    /** The four arithmetic operators of the selector grammar. */
    enum Operator {
        ADD("+"),
        SUBTRACT("-"),
        MULTIPLY("*"),
        DIVIDE("/");

        private final String symbol;

        Operator(String symbol) {
            this.symbol = symbol;
        }

        String symbol() {
            return symbol;
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
        if (Values.isExact(l) && Values.isExact(r)) {
            long a = ((Number) l).longValue();
            long b = ((Number) r).longValue();
            if (operator == Operator.DIVIDE && b == 0) {
                return null;
            }
            long result = switch (operator) {
                case ADD -> a + b;
                case SUBTRACT -> a - b;
                case MULTIPLY -> a * b;
                case DIVIDE -> a / b;
            };
            return result;
        }
        if (Values.isNumeric(l) && Values.isNumeric(r)) {
            double a = ((Number) l).doubleValue();
            double b = ((Number) r).doubleValue();
            double result = switch (operator) {
                case ADD -> a + b;
                case SUBTRACT -> a - b;
                case MULTIPLY -> a * b;
                case DIVIDE -> a / b;
            };
            return result;
        }
        return null;
    }
}
