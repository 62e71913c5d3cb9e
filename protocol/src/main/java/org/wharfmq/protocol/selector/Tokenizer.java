package org.wharfmq.protocol.selector;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Splits selector text into tokens (JMS 2.0 section 3.8.1.1 lexical rules).
 *
 * <p>Numeric literals follow Java literal syntax because the specification defines them that way; the sign is not
 * part of a literal, it is a unary operator handled by the parser.
 */
final class Tokenizer {

    /** The magnitude of Long.MIN_VALUE: as in Java, it is only a valid literal when negated. */
    static final BigInteger LONG_MIN_MAGNITUDE = BigInteger.ONE.shiftLeft(63);

    private static final Map<String, TokenType> KEYWORDS = Map.ofEntries(
            Map.entry("NULL", TokenType.NULL),
            Map.entry("TRUE", TokenType.TRUE),
            Map.entry("FALSE", TokenType.FALSE),
            Map.entry("NOT", TokenType.NOT),
            Map.entry("AND", TokenType.AND),
            Map.entry("OR", TokenType.OR),
            Map.entry("BETWEEN", TokenType.BETWEEN),
            Map.entry("LIKE", TokenType.LIKE),
            Map.entry("IN", TokenType.IN),
            Map.entry("IS", TokenType.IS),
            Map.entry("ESCAPE", TokenType.ESCAPE));

    private final String text;
    private final List<Token> tokens = new ArrayList<>();
    private int pos;

    private Tokenizer(String text) {
        this.text = text;
    }

    /**
     * Tokenizes the whole text.
     *
     * @return the tokens, always terminated by an {@link TokenType#EOF} token positioned at the text length
     */
    static List<Token> tokenize(String text) throws SelectorParseException {
        Tokenizer tokenizer = new Tokenizer(text);
        tokenizer.run();
        return tokenizer.tokens;
    }

    private void run() throws SelectorParseException {
        while (true) {
            skipWhitespace();
            if (pos >= text.length()) {
                tokens.add(new Token(TokenType.EOF, "", null, pos));
                return;
            }
            int start = pos;
            char c = text.charAt(pos);
            if (c == '\'') {
                readString(start);
            } else if (isDigit(c) || (c == '.' && pos + 1 < text.length() && isDigit(text.charAt(pos + 1)))) {
                readNumber(start);
            } else if (Character.isJavaIdentifierStart(text.codePointAt(pos))) {
                readWord(start);
            } else {
                readOperator(start, c);
            }
        }
    }

    /** Only the Java whitespace characters count; other Unicode spaces are errors, as in Java source. */
    private void skipWhitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r') {
                pos++;
            } else {
                return;
            }
        }
    }

    private void readString(int start) throws SelectorParseException {
        StringBuilder value = new StringBuilder();
        pos++;
        while (true) {
            if (pos >= text.length()) {
                throw new SelectorParseException(text, start, "Unterminated string literal");
            }
            char c = text.charAt(pos++);
            if (c == '\'') {
                if (pos < text.length() && text.charAt(pos) == '\'') {
                    value.append('\'');
                    pos++;
                } else {
                    break;
                }
            } else {
                value.append(c);
            }
        }
        add(TokenType.STRING, start, value.toString());
    }

    private void readWord(int start) {
        pos += Character.charCount(text.codePointAt(pos));
        while (pos < text.length() && Character.isJavaIdentifierPart(text.codePointAt(pos))) {
            pos += Character.charCount(text.codePointAt(pos));
        }
        String word = text.substring(start, pos);
        String upper = asciiUpperCase(word);
        TokenType keyword = upper == null ? null : KEYWORDS.get(upper);
        add(keyword == null ? TokenType.IDENTIFIER : keyword, start, null);
    }

    /**
     * Upper-cases ASCII-only words and returns null for anything else, because Unicode case mapping would turn
     * identifiers such as "ın" (dotless i) into the keyword IN.
     */
    private static String asciiUpperCase(String word) {
        char[] chars = new char[word.length()];
        for (int i = 0; i < chars.length; i++) {
            char c = word.charAt(i);
            if (c >= 0x80) {
                return null;
            }
            chars[i] = (c >= 'a' && c <= 'z') ? (char) (c - ('a' - 'A')) : c;
        }
        return new String(chars);
    }

    private void readNumber(int start) throws SelectorParseException {
        if (text.charAt(pos) == '0' && pos + 1 < text.length() && (text.charAt(pos + 1) | 0x20) == 'x') {
            readHex(start);
            return;
        }
        int digitsStart = pos;
        skipDigits();
        int digitsEnd = pos;
        boolean approximate = false;
        if (pos < text.length() && text.charAt(pos) == '.') {
            approximate = true;
            pos++;
            skipDigits();
        }
        if (pos < text.length() && (text.charAt(pos) | 0x20) == 'e') {
            approximate = true;
            pos++;
            if (pos < text.length() && (text.charAt(pos) == '+' || text.charAt(pos) == '-')) {
                pos++;
            }
            int exponentStart = pos;
            skipDigits();
            if (pos == exponentStart) {
                throw new SelectorParseException(text, start, "Missing exponent digits in numeric literal");
            }
        }
        char suffix = pos < text.length() ? (char) (text.charAt(pos) | 0x20) : 0;
        if (suffix == 'f' || suffix == 'd') {
            pos++;
            endOfNumber(start);
            add(TokenType.APPROXIMATE_NUMBER, start, approximateValue(start, suffix == 'f'));
        } else if (approximate) {
            endOfNumber(start);
            add(TokenType.APPROXIMATE_NUMBER, start, approximateValue(start, false));
        } else {
            if (suffix == 'l') {
                pos++;
            }
            endOfNumber(start);
            String digits = text.substring(digitsStart, digitsEnd);
            boolean octal = digits.length() > 1 && digits.charAt(0) == '0';
            add(TokenType.EXACT_NUMBER, start, exactValue(start, digits, octal ? 8 : 10));
        }
    }

    private void readHex(int start) throws SelectorParseException {
        pos += 2;
        int digitsStart = pos;
        while (pos < text.length() && Character.digit(text.charAt(pos), 16) >= 0 && text.charAt(pos) < 0x80) {
            pos++;
        }
        int digitsEnd = pos;
        if (digitsStart == digitsEnd) {
            throw new SelectorParseException(text, start, "Missing digits in hexadecimal literal");
        }
        if (pos < text.length() && (text.charAt(pos) | 0x20) == 'l') {
            pos++;
        }
        endOfNumber(start);
        add(TokenType.EXACT_NUMBER, start, exactValue(start, text.substring(digitsStart, digitsEnd), 16));
    }

    /**
     * Octal and hexadecimal literals denote 64 raw bits, as Java long literals do, so 0xFFFFFFFFFFFFFFFF is -1;
     * decimal literals must fit in a long (or be the negatable magnitude of Long.MIN_VALUE).
     */
    private Object exactValue(int start, String digits, int radix) throws SelectorParseException {
        BigInteger value;
        try {
            value = new BigInteger(digits, radix);
        } catch (NumberFormatException e) {
            throw new SelectorParseException(text, start, "Invalid " + (radix == 8 ? "octal" : "numeric") + " literal");
        }
        if (radix == 10) {
            if (value.bitLength() < 64) {
                return value.longValue();
            }
            if (value.equals(LONG_MIN_MAGNITUDE)) {
                return LONG_MIN_MAGNITUDE;
            }
        } else if (value.bitLength() <= 64) {
            return value.longValue();
        }
        throw new SelectorParseException(text, start, "Integer literal out of the range of a Java long");
    }

    /**
     * A float-suffixed literal is rounded to float precision first so that {@code f = 1.1F} matches a Float
     * property set to 1.1f, exactly as the equivalent Java comparison would.
     */
    private Double approximateValue(int start, boolean isFloat) throws SelectorParseException {
        String literal = text.substring(start, pos);
        double value = isFloat ? Float.parseFloat(literal) : Double.parseDouble(literal);
        if (Double.isInfinite(value)) {
            throw new SelectorParseException(text, start, "Floating-point literal out of range");
        }
        return value;
    }

    /** Rejects "12abc" instead of silently splitting it into a number and an identifier. */
    private void endOfNumber(int start) throws SelectorParseException {
        if (pos < text.length() && (Character.isJavaIdentifierPart(text.codePointAt(pos)) || text.charAt(pos) == '.')) {
            throw new SelectorParseException(text, start, "Invalid numeric literal");
        }
    }

    private void skipDigits() {
        while (pos < text.length() && isDigit(text.charAt(pos))) {
            pos++;
        }
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private void readOperator(int start, char c) throws SelectorParseException {
        char next = pos + 1 < text.length() ? text.charAt(pos + 1) : 0;
        TokenType type;
        int length = 1;
        switch (c) {
            case '=' -> type = TokenType.EQ;
            case '<' -> {
                if (next == '>') {
                    type = TokenType.NE;
                    length = 2;
                } else if (next == '=') {
                    type = TokenType.LE;
                    length = 2;
                } else {
                    type = TokenType.LT;
                }
            }
            case '>' -> {
                if (next == '=') {
                    type = TokenType.GE;
                    length = 2;
                } else {
                    type = TokenType.GT;
                }
            }
            case '+' -> type = TokenType.PLUS;
            case '-' -> type = TokenType.MINUS;
            case '*' -> type = TokenType.STAR;
            case '/' -> type = TokenType.SLASH;
            case '(' -> type = TokenType.LPAREN;
            case ')' -> type = TokenType.RPAREN;
            case ',' -> type = TokenType.COMMA;
            default -> throw new SelectorParseException(text, start,
                    "Unexpected character '" + new String(Character.toChars(text.codePointAt(start))) + "'");
        }
        pos += length;
        add(type, start, null);
    }

    private void add(TokenType type, int start, Object value) {
        tokens.add(new Token(type, text.substring(start, pos), value, start));
    }
}
