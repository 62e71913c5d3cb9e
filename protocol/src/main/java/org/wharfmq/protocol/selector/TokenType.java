package org.wharfmq.protocol.selector;

/** Lexical categories of selector tokens. */
enum TokenType {
    IDENTIFIER,
    STRING,
    EXACT_NUMBER,
    APPROXIMATE_NUMBER,
    // keywords
    NULL,
    TRUE,
    FALSE,
    NOT,
    AND,
    OR,
    BETWEEN,
    LIKE,
    IN,
    IS,
    ESCAPE,
    // operators and punctuation
    EQ,
    NE,
    LT,
    LE,
    GT,
    GE,
    PLUS,
    MINUS,
    STAR,
    SLASH,
    LPAREN,
    RPAREN,
    COMMA,
    EOF
}
