package org.wharfmq.protocol.selector;

/**
 * A node of the compiled selector tree. Implementations are immutable, so one tree can be evaluated by any number
 * of threads at once.
 *
 * <p>Evaluation results: {@code null} stands for SQL NULL / UNKNOWN, {@link Boolean} for logical values, a
 * {@link Number} (Byte, Short, Integer, Long, Float or Double) or a {@link String} otherwise. Evaluation never
 * throws for message values of an unexpected type: see {@link Values} for how they are treated.
 */
sealed interface Expression
        permits Literal, Identifier, Arithmetic, Negation, Comparison, LogicalAnd, LogicalOr, LogicalNot, Between,
        InList, Like, IsNull {

    /**
     * Evaluates this node against one message.
     *
     * @return the value, or null for NULL / UNKNOWN
     */
    Object evaluate(SelectorContext message);
}
