package org.wharfmq.protocol.selector;

/**
 * NOT (JMS 2.0 table 3-6): NOT UNKNOWN is UNKNOWN. A non-boolean operand value counts as UNKNOWN.
 *
 * @param operand the negated expression
 */
record LogicalNot(Expression operand) implements Expression {

    @Override
    public Object evaluate(SelectorContext message) {
        Boolean value = Values.toLogical(operand.evaluate(message));
        if (value == null) {
            return null;
        }
        return value ? Boolean.FALSE : Boolean.TRUE;
    }
}
