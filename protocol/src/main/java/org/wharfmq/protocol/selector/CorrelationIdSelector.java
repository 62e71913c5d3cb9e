package org.wharfmq.protocol.selector;

/**
 * The request/reply selector {@code JMSCorrelationID = 'literal'} recognised without the tokenizer and parser: a
 * requester that selects each reply by its request's id (the IBM MQ convention) makes a consumer per request, and both
 * its client and the server parse that consumer's selector, a tokenizer's list, tokens, a parser and its nodes each
 * time. Only the plainest spelling is taken here (the identifier first, one {@code =}, a literal without a quote in
 * it, blanks around them as the tokenizer skips them); any other text goes to the grammar, which gives the same
 * expression for this one ({@code CorrelationIdSelectorTest} holds them equal).
 */
final class CorrelationIdSelector {
    private static final String IDENTIFIER = "JMSCorrelationID";

    private CorrelationIdSelector() {
    }

    /** The literal of a selector spelled {@code JMSCorrelationID = 'literal'}; null for any other text. */
    static String literalOf(String text) {
        int at = skipBlanks(text, 0);
        if (!text.startsWith(IDENTIFIER, at)) {
            return null;
        }
        at = skipBlanks(text, at + IDENTIFIER.length());
        if (at >= text.length() || text.charAt(at) != '=') {
            return null;
        }
        at = skipBlanks(text, at + 1);
        if (at >= text.length() || text.charAt(at) != '\'') {
            return null;
        }
        int close = text.indexOf('\'', at + 1);
        if (close < 0 || skipBlanks(text, close + 1) != text.length()) {
            return null; // unterminated, a quote inside (doubled), or more after it
        }
        return text.substring(at + 1, close);
    }

    /** What the parser makes of {@code JMSCorrelationID = 'literal'}. */
    static Expression expression(String literal) {
        return new Comparison(Comparison.Operator.EQ, new Identifier(IDENTIFIER), new Literal(literal));
    }

    /** The index of the first character at or after {@code at} that the tokenizer does not skip as a blank. */
    private static int skipBlanks(String text, int at) {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\t' && c != '\f' && c != '\n' && c != '\r') {
                return at;
            }
            at++;
        }
        return at;
    }
}
