package org.wharfmq.protocol.selector;

/**
 * One lexical token.
 *
 * @param type the category
 * @param text the source characters, used in error messages
 * @param value the decoded literal: String for strings, Long for exact numbers (or a BigInteger for the magnitude
 *     of Long.MIN_VALUE, which is only legal after a unary minus), Double for approximate numbers; null otherwise
 * @param position zero-based index of the first character in the selector text
 */
record Token(TokenType type, String text, Object value, int position) {

    /** Describes the token for an error message. */
    String describe() {
        return type == TokenType.EOF ? "end of selector" : "'" + text + "'";
    }
}
