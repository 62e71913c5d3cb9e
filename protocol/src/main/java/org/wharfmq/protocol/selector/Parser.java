package org.wharfmq.protocol.selector;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Recursive-descent parser for the JMS 2.0 section 3.8.1.1 selector grammar. Precedence, lowest first:
 * OR; AND; NOT; comparison, [NOT] BETWEEN, [NOT] IN, [NOT] LIKE, IS [NOT] NULL; binary + -; * /; unary + -.
 *
 * <p>Besides syntax it checks the static types the grammar implies, so that mistakes such as {@code 'a' + 1},
 * {@code JMSPriority LIKE '4'} or {@code 'a' < 'b'} are reported to the client immediately instead of silently
 * never matching on the server.
 */
final class Parser {

    /**
     * Bounds parser recursion (parentheses and prefix operators); generous for hand-written selectors while
     * keeping a hostile selector from overflowing the stack of the thread that parses it.
     */
    private static final int MAX_NESTING = 100;

    /**
     * Bounds the depth of the compiled tree, which the evaluator recurses through on delivery threads. AND and OR
     * chains are flattened, so only unusually long arithmetic chains come near it.
     */
    private static final int MAX_TREE_DEPTH = 400;

    /** Header fields the specification allows in selectors, with the type their values always have. */
    private static final Map<String, StaticType> HEADERS = Map.of(
            "JMSDeliveryMode", StaticType.STRING,
            "JMSPriority", StaticType.NUMERIC,
            "JMSMessageID", StaticType.STRING,
            "JMSTimestamp", StaticType.NUMERIC,
            "JMSCorrelationID", StaticType.STRING,
            "JMSType", StaticType.STRING);

    /** A parsed sub-expression plus what the parser needs to know about it for checks and error positions. */
    private record Operand(Expression expression, StaticType type, int position, int depth) {
    }

    private final String text;
    private final List<Token> tokens;
    private int index;
    private int nesting;

    private Parser(String text, List<Token> tokens) {
        this.text = text;
        this.tokens = tokens;
    }

    /**
     * Parses a complete selector.
     *
     * @param text the selector, used for error messages
     * @param tokens its tokens, ending with EOF, containing more than just EOF
     */
    static Expression parse(String text, List<Token> tokens) throws SelectorParseException {
        Parser parser = new Parser(text, tokens);
        Operand root = parser.parseOr();
        Token trailing = parser.peek();
        if (trailing.type() != TokenType.EOF) {
            throw parser.error(trailing, "Unexpected " + trailing.describe() + " after the end of the expression");
        }
        if (!root.type().compatibleWith(StaticType.BOOLEAN)) {
            throw parser.error(root.position(),
                    "A selector must be a boolean expression, but this is a " + root.type().describe() + " expression");
        }
        return root.expression();
    }

    private Operand parseOr() throws SelectorParseException {
        Operand first = parseAnd();
        if (peek().type() != TokenType.OR) {
            return first;
        }
        List<Operand> operands = new ArrayList<>();
        operands.add(requireLogical(first, "OR"));
        while (accept(TokenType.OR)) {
            operands.add(requireLogical(parseAnd(), "OR"));
        }
        List<Expression> flat = new ArrayList<>();
        for (Operand operand : operands) {
            if (operand.expression() instanceof LogicalOr nested) {
                flat.addAll(nested.operands());
            } else {
                flat.add(operand.expression());
            }
        }
        return node(new LogicalOr(flat), StaticType.BOOLEAN, first.position(), maxDepth(operands));
    }

    private Operand parseAnd() throws SelectorParseException {
        Operand first = parseNot();
        if (peek().type() != TokenType.AND) {
            return first;
        }
        List<Operand> operands = new ArrayList<>();
        operands.add(requireLogical(first, "AND"));
        while (accept(TokenType.AND)) {
            operands.add(requireLogical(parseNot(), "AND"));
        }
        List<Expression> flat = new ArrayList<>();
        for (Operand operand : operands) {
            if (operand.expression() instanceof LogicalAnd nested) {
                flat.addAll(nested.operands());
            } else {
                flat.add(operand.expression());
            }
        }
        return node(new LogicalAnd(flat), StaticType.BOOLEAN, first.position(), maxDepth(operands));
    }

    private Operand parseNot() throws SelectorParseException {
        Token not = peek();
        if (!accept(TokenType.NOT)) {
            return parsePredicate();
        }
        enter(not);
        Operand operand = requireLogical(parseNot(), "NOT");
        nesting--;
        return node(new LogicalNot(operand.expression()), StaticType.BOOLEAN, not.position(), operand.depth());
    }

    private Operand parsePredicate() throws SelectorParseException {
        Operand left = parseAdditive();
        Token operator = peek();
        switch (operator.type()) {
            case EQ, NE, LT, LE, GT, GE -> {
                next();
                return comparison(operator, left, parseAdditive());
            }
            case BETWEEN, IN, LIKE -> {
                next();
                return negatablePredicate(operator, left, false);
            }
            case NOT -> {
                next();
                Token negated = next();
                if (negated.type() != TokenType.BETWEEN && negated.type() != TokenType.IN
                        && negated.type() != TokenType.LIKE) {
                    throw error(negated, "Expected BETWEEN, IN or LIKE after NOT but found " + negated.describe());
                }
                return negatablePredicate(negated, left, true);
            }
            case IS -> {
                next();
                return isNull(left);
            }
            default -> {
                return left;
            }
        }
    }

    private Operand comparison(Token operatorToken, Operand left, Operand right) throws SelectorParseException {
        Comparison.Operator operator = switch (operatorToken.type()) {
            case EQ -> Comparison.Operator.EQ;
            case NE -> Comparison.Operator.NE;
            case LT -> Comparison.Operator.LT;
            case LE -> Comparison.Operator.LE;
            case GT -> Comparison.Operator.GT;
            default -> Comparison.Operator.GE;
        };
        if (operator.isEquality()) {
            if (left.type() != StaticType.DYNAMIC && right.type() != StaticType.DYNAMIC
                    && left.type() != right.type()) {
                throw error(operatorToken, "Cannot compare a " + left.type().describe() + " value with a "
                        + right.type().describe() + " value");
            }
        } else {
            requireNumeric(left, "'" + operator.symbol() + "' (only = and <> apply to strings and booleans)");
            requireNumeric(right, "'" + operator.symbol() + "' (only = and <> apply to strings and booleans)");
        }
        return node(new Comparison(operator, left.expression(), right.expression()), StaticType.BOOLEAN,
                left.position(), maxDepth(List.of(left, right)));
    }

    private Operand negatablePredicate(Token keyword, Operand left, boolean negated) throws SelectorParseException {
        return switch (keyword.type()) {
            case BETWEEN -> between(left, negated);
            case IN -> in(keyword, left, negated);
            default -> like(keyword, left, negated);
        };
    }

    private Operand between(Operand value, boolean negated) throws SelectorParseException {
        requireNumeric(value, "BETWEEN");
        Operand low = requireNumeric(parseAdditive(), "BETWEEN");
        expect(TokenType.AND, "AND between the BETWEEN bounds");
        Operand high = requireNumeric(parseAdditive(), "BETWEEN");
        return node(new Between(value.expression(), low.expression(), high.expression(), negated),
                StaticType.BOOLEAN, value.position(), maxDepth(List.of(value, low, high)));
    }

    private Operand in(Token keyword, Operand left, boolean negated) throws SelectorParseException {
        Identifier identifier = requireStringIdentifier(left, keyword);
        expect(TokenType.LPAREN, "'(' after IN");
        Set<String> values = new LinkedHashSet<>();
        Token first = peek();
        if (first.type() == TokenType.RPAREN) {
            throw error(first, "The IN list must not be empty");
        }
        do {
            Token literal = next();
            if (literal.type() != TokenType.STRING) {
                throw error(literal, "IN lists may only contain string literals, found " + literal.describe());
            }
            values.add((String) literal.value());
        } while (accept(TokenType.COMMA));
        expect(TokenType.RPAREN, "',' or ')' in the IN list");
        return node(new InList(identifier, values, negated), StaticType.BOOLEAN, left.position(), 1);
    }

    private Operand like(Token keyword, Operand left, boolean negated) throws SelectorParseException {
        Identifier identifier = requireStringIdentifier(left, keyword);
        Token pattern = next();
        if (pattern.type() != TokenType.STRING) {
            throw error(pattern, "The LIKE pattern must be a string literal, found " + pattern.describe());
        }
        int escape = -1;
        if (accept(TokenType.ESCAPE)) {
            Token escapeToken = next();
            if (escapeToken.type() != TokenType.STRING) {
                throw error(escapeToken, "ESCAPE must be followed by a string literal, found " + escapeToken.describe());
            }
            String escapeText = (String) escapeToken.value();
            if (escapeText.isEmpty() || escapeText.codePointCount(0, escapeText.length()) != 1) {
                throw error(escapeToken, "The ESCAPE string must be exactly one character");
            }
            escape = escapeText.codePointAt(0);
        }
        LikePattern compiled;
        try {
            compiled = LikePattern.compile((String) pattern.value(), escape);
        } catch (IllegalArgumentException e) {
            throw error(pattern, e.getMessage());
        }
        return node(new Like(identifier, compiled, negated), StaticType.BOOLEAN, left.position(), 1);
    }

    private Operand isNull(Operand left) throws SelectorParseException {
        if (!(left.expression() instanceof Identifier identifier)) {
            throw error(left.position(), "IS [NOT] NULL may only be applied to an identifier");
        }
        boolean negated = accept(TokenType.NOT);
        expect(TokenType.NULL, "NULL after IS" + (negated ? " NOT" : ""));
        return node(new IsNull(identifier, negated), StaticType.BOOLEAN, left.position(), 1);
    }

    private Operand parseAdditive() throws SelectorParseException {
        Operand left = parseMultiplicative();
        while (peek().type() == TokenType.PLUS || peek().type() == TokenType.MINUS) {
            Token operator = next();
            Operand right = parseMultiplicative();
            left = arithmetic(operator.type() == TokenType.PLUS ? Arithmetic.Operator.ADD
                    : Arithmetic.Operator.SUBTRACT, left, right);
        }
        return left;
    }

    private Operand parseMultiplicative() throws SelectorParseException {
        Operand left = parseUnary();
        while (peek().type() == TokenType.STAR || peek().type() == TokenType.SLASH) {
            Token operator = next();
            Operand right = parseUnary();
            left = arithmetic(operator.type() == TokenType.STAR ? Arithmetic.Operator.MULTIPLY
                    : Arithmetic.Operator.DIVIDE, left, right);
        }
        return left;
    }

    private Operand arithmetic(Arithmetic.Operator operator, Operand left, Operand right)
            throws SelectorParseException {
        requireNumeric(left, "'" + operator.symbol() + "'");
        requireNumeric(right, "'" + operator.symbol() + "'");
        return node(new Arithmetic(operator, left.expression(), right.expression()), StaticType.NUMERIC,
                left.position(), maxDepth(List.of(left, right)));
    }

    private Operand parseUnary() throws SelectorParseException {
        Token sign = peek();
        if (sign.type() != TokenType.PLUS && sign.type() != TokenType.MINUS) {
            return parsePrimary();
        }
        next();
        boolean negate = sign.type() == TokenType.MINUS;
        Token literal = peek();
        if (negate && literal.type() == TokenType.EXACT_NUMBER
                && Tokenizer.LONG_MIN_MAGNITUDE.equals(literal.value())) {
            next();
            return node(new Literal(Long.MIN_VALUE), StaticType.NUMERIC, sign.position(), 0);
        }
        enter(sign);
        Operand operand = requireNumeric(parseUnary(), "unary '" + sign.text() + "'");
        nesting--;
        // folding signs of literals keeps "-5" as cheap as "5" at evaluation time
        if (operand.expression() instanceof Literal l) {
            Object folded = !negate ? l.value()
                    : l.value() instanceof Long n ? (Object) (-n) : (Object) (-(Double) l.value());
            return node(new Literal(folded), StaticType.NUMERIC, sign.position(), 0);
        }
        return node(new Negation(negate, operand.expression()), StaticType.NUMERIC, sign.position(), operand.depth());
    }

    private Operand parsePrimary() throws SelectorParseException {
        Token token = next();
        return switch (token.type()) {
            case LPAREN -> {
                enter(token);
                Operand inner = parseOr();
                expect(TokenType.RPAREN, "')' to close the '(' at position " + token.position());
                nesting--;
                yield new Operand(inner.expression(), inner.type(), token.position(), inner.depth());
            }
            case STRING -> node(new Literal(token.value()), StaticType.STRING, token.position(), 0);
            case APPROXIMATE_NUMBER -> node(new Literal(token.value()), StaticType.NUMERIC, token.position(), 0);
            case EXACT_NUMBER -> {
                if (!(token.value() instanceof Long)) {
                    throw error(token, "Integer literal out of the range of a Java long");
                }
                yield node(new Literal(token.value()), StaticType.NUMERIC, token.position(), 0);
            }
            case TRUE -> node(new Literal(Boolean.TRUE), StaticType.BOOLEAN, token.position(), 0);
            case FALSE -> node(new Literal(Boolean.FALSE), StaticType.BOOLEAN, token.position(), 0);
            case IDENTIFIER -> identifier(token);
            case NULL -> throw error(token, "NULL may only be used in IS NULL or IS NOT NULL");
            case EOF -> throw error(token, "Unexpected end of selector, expected an operand");
            default -> throw error(token, "Unexpected " + token.describe() + ", expected an operand");
        };
    }

    /**
     * Names starting with "JMS" are reserved by the specification: only the listed headers, JMSX* properties and
     * JMS_vendor properties are meaningful, and headers such as JMSDestination or JMSRedelivered are explicitly
     * excluded from selectors.
     */
    private Operand identifier(Token token) throws SelectorParseException {
        String name = token.text();
        StaticType type = HEADERS.get(name);
        if (type == null) {
            if (name.startsWith("JMS") && !name.startsWith("JMSX") && !name.startsWith("JMS_")) {
                throw error(token, "'" + name + "' cannot be used in a selector: the only header fields allowed are "
                        + "JMSDeliveryMode, JMSPriority, JMSMessageID, JMSTimestamp, JMSCorrelationID and JMSType");
            }
            type = StaticType.DYNAMIC;
        }
        return node(new Identifier(name), type, token.position(), 0);
    }

    private Identifier requireStringIdentifier(Operand operand, Token keyword) throws SelectorParseException {
        if (!(operand.expression() instanceof Identifier identifier)) {
            throw error(operand.position(), keyword.text().toUpperCase(Locale.ROOT)
                    + " may only be applied to an identifier");
        }
        if (!operand.type().compatibleWith(StaticType.STRING)) {
            throw error(operand.position(), keyword.text().toUpperCase(Locale.ROOT)
                    + " requires a string value, but '" + identifier.name() + "' is " + operand.type().describe());
        }
        return identifier;
    }

    private Operand requireNumeric(Operand operand, String context) throws SelectorParseException {
        if (!operand.type().compatibleWith(StaticType.NUMERIC)) {
            throw error(operand.position(), "A " + operand.type().describe()
                    + " value cannot be used as a number in " + context);
        }
        return operand;
    }

    private Operand requireLogical(Operand operand, String context) throws SelectorParseException {
        if (!operand.type().compatibleWith(StaticType.BOOLEAN)) {
            throw error(operand.position(), "A " + operand.type().describe()
                    + " value cannot be used as a condition in " + context);
        }
        return operand;
    }

    private Operand node(Expression expression, StaticType type, int position, int childDepth)
            throws SelectorParseException {
        int depth = childDepth + 1;
        if (depth > MAX_TREE_DEPTH) {
            throw error(position, "Selector is too deeply nested (more than " + MAX_TREE_DEPTH + " levels)");
        }
        return new Operand(expression, type, position, depth);
    }

    private static int maxDepth(List<Operand> operands) {
        int max = 0;
        for (Operand operand : operands) {
            max = Math.max(max, operand.depth());
        }
        return max;
    }

    private void enter(Token token) throws SelectorParseException {
        if (++nesting > MAX_NESTING) {
            throw error(token, "Selector is too deeply nested (more than " + MAX_NESTING + " levels)");
        }
    }

    private Token peek() {
        return tokens.get(index);
    }

    private Token next() {
        Token token = tokens.get(index);
        if (token.type() != TokenType.EOF) {
            index++;
        }
        return token;
    }

    private boolean accept(TokenType type) {
        if (peek().type() == type) {
            next();
            return true;
        }
        return false;
    }

    private void expect(TokenType type, String what) throws SelectorParseException {
        Token token = next();
        if (token.type() != type) {
            throw error(token, "Expected " + what + " but found " + token.describe());
        }
    }

    private SelectorParseException error(Token token, String reason) {
        return new SelectorParseException(text, token.position(), reason);
    }

    private SelectorParseException error(int position, String reason) {
        return new SelectorParseException(text, position, reason);
    }
}
