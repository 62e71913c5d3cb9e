package org.wharfmq.protocol.selector;

import java.util.List;
import java.util.Objects;

/**
 * A compiled JMS message selector (JMS 2.0 section 3.8.1).
 *
 * <p>Instances are immutable and thread-safe: parse once per consumer, then call {@link #matches} from any number
 * of delivery threads. Evaluation uses SQL three-valued logic; a message is selected only when the selector
 * evaluates to TRUE. Decisions where the specification is silent or loose:
 * <ul>
 *   <li>A comparison, BETWEEN, IN or LIKE whose operands are not of like types (for example a String property
 *       compared with a number) is FALSE, including for {@code <>}, NOT BETWEEN, NOT IN and NOT LIKE; if an
 *       operand is NULL the result is UNKNOWN instead. Ordering operators are FALSE unless both sides are
 *       numeric.</li>
 *   <li>Arithmetic on a NULL or non-numeric value, and integer division by zero, yield NULL (so the enclosing
 *       comparison is UNKNOWN). Exact arithmetic is done in {@code long} and wraps on overflow; if either operand
 *       is approximate it is done in {@code double}.</li>
 *   <li>A property that is not a Boolean, used as a condition, is UNKNOWN.</li>
 *   <li>Comparisons whose operand types are statically known to differ (for example {@code 'a' = 1},
 *       {@code JMSPriority = '4'}) are rejected at parse time, as the grammar does not produce them.</li>
 * </ul>
 */
public final class Selector {

    /**
     * The selector that matches every message: what {@link #parse} returns for null, empty or blank text, which
     * the JMS API treats as "no selector". Its {@link #text()} is the empty string.
     */
    public static final Selector ALL_MATCH = new Selector("", new Literal(Boolean.TRUE), null, true);

    private final String text;
    private final Expression root;
    private final String requiredCorrelationId;
    private final boolean matchesAll;

    private Selector(String text, Expression root, String requiredCorrelationId, boolean matchesAll) {
        this.text = text;
        this.root = root;
        this.requiredCorrelationId = requiredCorrelationId;
        this.matchesAll = matchesAll;
    }

    /**
     * Parses and validates a selector.
     *
     * <p>Besides syntax errors, semantically invalid selectors are rejected: arithmetic on strings or booleans,
     * ordering comparisons on strings or booleans, comparisons between operands of statically different types,
     * LIKE or IN applied to something that is not a string identifier, empty IN lists, ESCAPE strings that are not
     * exactly one character, header fields not allowed in selectors (JMSDestination, JMSReplyTo, JMSExpiration,
     * JMSRedelivered, and any other name starting with "JMS" that is not an allowed header, a JMSX property or a
     * JMS_ property), and selectors that are not boolean expressions (a bare identifier is accepted as a boolean
     * property).
     *
     * @param text the selector; null, empty, or containing only whitespace means "select every message"
     * @return the compiled selector; {@link #ALL_MATCH} for null or blank text
     * @throws SelectorParseException if the selector is invalid; its position points at the offending character
     */
    public static Selector parse(String text) throws SelectorParseException {
        if (text == null) {
            return ALL_MATCH;
        }
        String correlationId = CorrelationIdSelector.literalOf(text);
        if (correlationId != null) {
            return new Selector(text, CorrelationIdSelector.expression(correlationId), correlationId, false);
        }
        return parseGrammar(text);
    }

    /** {@link #parse} by the tokenizer and parser alone, whatever the text (what the fast form must equal). */
    static Selector parseGrammar(String text) throws SelectorParseException {
        List<Token> tokens = Tokenizer.tokenize(text);
        if (tokens.size() == 1) {
            return ALL_MATCH;
        }
        Expression root = Parser.parse(text, tokens);
        return new Selector(text, root, findRequiredCorrelationId(root), false);
    }

    /**
     * Evaluates the selector against a message.
     *
     * <p>Thread-safe and allocation-free apart from boxing the results of arithmetic.
     *
     * @param message the values of the message's headers and properties
     * @return true only when the selector evaluates to TRUE; FALSE and UNKNOWN do not select
     */
    public boolean matches(SelectorContext message) {
        Objects.requireNonNull(message, "message");
        return matchesAll || Values.toLogical(root.evaluate(message)) == Boolean.TRUE;
    }

    /**
     * Returns the correlation ID every selected message must have, so the server can serve the consumer from a
     * correlation-ID index instead of scanning the queue. Found when the whole selector is
     * {@code JMSCorrelationID = 'literal'} (either operand order) or an AND whose conjuncts, at any level of
     * AND nesting, include that comparison. The selector must still be evaluated on the candidates it yields.
     *
     * @return the literal, or null when the selector does not pin the correlation ID
     */
    public String requiredCorrelationId() {
        return requiredCorrelationId;
    }

    /** The compiled expression (tests compare how two texts compiled). */
    Expression root() {
        return root;
    }

    /**
     * Returns the selector text.
     *
     * @return the text as given to {@link #parse}, or the empty string for {@link #ALL_MATCH}
     */
    public String text() {
        return text;
    }

    /**
     * Tells whether this is the empty selector, so callers can skip evaluation altogether.
     *
     * @return true for {@link #ALL_MATCH} (null or blank selector text), false otherwise, even for a selector such
     *     as {@code TRUE} that happens to select everything
     */
    public boolean matchesAll() {
        return matchesAll;
    }

    /**
     * Returns the selector text.
     *
     * @return {@link #text()}
     */
    @Override
    public String toString() {
        return text;
    }

    private static String findRequiredCorrelationId(Expression root) {
        if (root instanceof LogicalAnd and) {
            // the parser flattens nested ANDs, including parenthesised ones, so one level is all there is
            for (Expression conjunct : and.operands()) {
                String id = correlationIdEquality(conjunct);
                if (id != null) {
                    return id;
                }
            }
            return null;
        }
        return correlationIdEquality(root);
    }

    private static String correlationIdEquality(Expression expression) {
        if (!(expression instanceof Comparison comparison) || comparison.operator() != Comparison.Operator.EQ) {
            return null;
        }
        String id = correlationIdLiteral(comparison.left(), comparison.right());
        return id != null ? id : correlationIdLiteral(comparison.right(), comparison.left());
    }

    private static String correlationIdLiteral(Expression identifier, Expression literal) {
        if (identifier instanceof Identifier id && id.name().equals("JMSCorrelationID")
                && literal instanceof Literal value && value.value() instanceof String s) {
            return s;
        }
        return null;
    }
}
