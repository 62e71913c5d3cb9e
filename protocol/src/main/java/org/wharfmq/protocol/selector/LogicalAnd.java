package org.wharfmq.protocol.selector;

import java.util.List;

/**
 * An n-ary AND. A chain {@code a AND b AND c} is one node rather than a left-deep tree so that long generated
 * selectors do not need deep recursion on the delivery path; AND is associative in three-valued logic, so this
 * changes nothing observable.
 *
 * <p>Truth table (JMS 2.0 table 3-4): FALSE if any operand is FALSE, otherwise UNKNOWN if any operand is UNKNOWN,
 * otherwise TRUE. A non-boolean operand value counts as UNKNOWN.
 */
final class LogicalAnd implements Expression {

    private final Expression[] operands;

    LogicalAnd(List<Expression> operands) {
        this.operands = operands.toArray(new Expression[0]);
    }

    /** The conjuncts, in source order. */
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
            } else if (!value) {
                return Boolean.FALSE;
            }
        }
        return unknown ? null : Boolean.TRUE;
    }
}
