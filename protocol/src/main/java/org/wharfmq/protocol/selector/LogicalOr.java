package org.wharfmq.protocol.selector;

import java.util.List;

/**
 * An n-ary OR, flattened for the same reason as {@link LogicalAnd}.
 *
 * <p>Truth table (JMS 2.0 table 3-5): TRUE if any operand is TRUE, otherwise UNKNOWN if any operand is UNKNOWN,
 * otherwise FALSE. A non-boolean operand value counts as UNKNOWN.
 */
final class LogicalOr implements Expression {

    private final Expression[] operands;

    LogicalOr(List<Expression> operands) {
        this.operands = operands.toArray(new Expression[0]);
    }

    /** The disjuncts, in source order. */
    List<Expression> operands() {
        return List.of(operands);
    }

    @Override
    public Object evaluate(SelectorContext message) {
        boolean unknown = false;
        for (Expression operand : operands) {
            Boolean value = Values.toLogical(operand.evaluate(message));
            if (value == null) {
                unknown = true;
            } else if (value) {
                return Boolean.TRUE;
            }
        }
        return unknown ? null : Boolean.FALSE;
    }
}
