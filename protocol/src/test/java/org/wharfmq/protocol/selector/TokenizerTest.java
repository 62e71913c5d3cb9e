package org.wharfmq.protocol.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Lexical rules: literal forms and values, keywords, identifiers, operators and positions. */
class TokenizerTest {

    private static Token single(String text) throws SelectorParseException {
        List<Token> tokens = Tokenizer.tokenize(text);
        assertEquals(2, tokens.size(), () -> "expected one token in " + tokens);
        assertEquals(TokenType.EOF, tokens.get(1).type());
        return tokens.get(0);
    }

    private record Literal(String text, TokenType type, Object value) {
    }

    @TestFactory
    Stream<DynamicTest> literals() {
        return Stream.of(
                new Literal("0", TokenType.EXACT_NUMBER, 0L),
                new Literal("57", TokenType.EXACT_NUMBER, 57L),
                new Literal("57L", TokenType.EXACT_NUMBER, 57L),
                new Literal("57l", TokenType.EXACT_NUMBER, 57L),
                new Literal("0x1F", TokenType.EXACT_NUMBER, 31L),
                new Literal("0XffL", TokenType.EXACT_NUMBER, 255L),
                new Literal("0xFFFFFFFFFFFFFFFF", TokenType.EXACT_NUMBER, -1L),
                new Literal("017", TokenType.EXACT_NUMBER, 15L),
                new Literal("00", TokenType.EXACT_NUMBER, 0L),
                new Literal("9223372036854775807", TokenType.EXACT_NUMBER, Long.MAX_VALUE),
                new Literal("9223372036854775808", TokenType.EXACT_NUMBER, Tokenizer.LONG_MIN_MAGNITUDE),
                new Literal("1.5", TokenType.APPROXIMATE_NUMBER, 1.5),
                new Literal("1e10", TokenType.APPROXIMATE_NUMBER, 1e10),
                new Literal("7E-3", TokenType.APPROXIMATE_NUMBER, 7e-3),
                new Literal("7e+3", TokenType.APPROXIMATE_NUMBER, 7e3),
                new Literal(".5", TokenType.APPROXIMATE_NUMBER, 0.5),
                new Literal("5.", TokenType.APPROXIMATE_NUMBER, 5.0),
                new Literal("1.e2", TokenType.APPROXIMATE_NUMBER, 100.0),
                new Literal("09.5", TokenType.APPROXIMATE_NUMBER, 9.5),
                new Literal("1.1F", TokenType.APPROXIMATE_NUMBER, (double) 1.1f),
                new Literal("1.1d", TokenType.APPROXIMATE_NUMBER, 1.1),
                new Literal("3f", TokenType.APPROXIMATE_NUMBER, 3.0),
                new Literal("'abc'", TokenType.STRING, "abc"),
                new Literal("''", TokenType.STRING, ""),
                new Literal("'it''s'", TokenType.STRING, "it's"),
                new Literal("''''", TokenType.STRING, "'"),
                new Literal("'a\nb'", TokenType.STRING, "a\nb"),
                new Literal("'%_\\'", TokenType.STRING, "%_\\"))
                .map(l -> DynamicTest.dynamicTest(l.text(), () -> {
                    Token token = single(l.text());
                    assertEquals(l.type(), token.type());
                    assertEquals(l.value(), token.value());
                    assertEquals(l.text(), token.text());
                }));
    }

    @Test
    void keywordsAreCaseInsensitiveAndAsciiOnly() throws SelectorParseException {
        assertEquals(TokenType.AND, single("aNd").type());
        assertEquals(TokenType.BETWEEN, single("between").type());
        assertEquals(TokenType.ESCAPE, single("Escape").type());
        assertEquals(TokenType.NULL, single("null").type());
        assertEquals(TokenType.TRUE, single("True").type());
        // dotless i upper-cases to I, which must not turn this identifier into the keyword IN
        assertEquals(TokenType.IDENTIFIER, single("\u0131n").type());
        assertEquals(TokenType.IDENTIFIER, single("ANDY").type());
        assertEquals(TokenType.IDENTIFIER, single("$x_1").type());
        assertEquals(TokenType.IDENTIFIER, single("_").type());
        assertEquals(TokenType.IDENTIFIER, single("caf\u00e9").type());
    }

    @Test
    void operatorsAndPositions() throws SelectorParseException {
        List<Token> tokens = Tokenizer.tokenize("a<>b <= >= < > = + - * / ( ) ,");
        List<TokenType> expected = List.of(TokenType.IDENTIFIER, TokenType.NE, TokenType.IDENTIFIER, TokenType.LE,
                TokenType.GE, TokenType.LT, TokenType.GT, TokenType.EQ, TokenType.PLUS, TokenType.MINUS,
                TokenType.STAR, TokenType.SLASH, TokenType.LPAREN, TokenType.RPAREN, TokenType.COMMA, TokenType.EOF);
        assertEquals(expected, tokens.stream().map(Token::type).toList());
        assertEquals(List.of(0, 1, 3, 5, 8, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 30),
                tokens.stream().map(Token::position).toList());
    }

    @Test
    void signIsNotPartOfTheLiteral() throws SelectorParseException {
        List<Token> tokens = Tokenizer.tokenize("-5");
        assertEquals(List.of(TokenType.MINUS, TokenType.EXACT_NUMBER, TokenType.EOF),
                tokens.stream().map(Token::type).toList());
    }
}
