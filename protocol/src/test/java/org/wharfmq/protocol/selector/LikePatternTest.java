package org.wharfmq.protocol.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The LIKE matcher, checked against a straightforward regular-expression translation. */
class LikePatternTest {

    /** Reference semantics: escape every literal character, {@code _} is one code point, {@code %} any run. */
    private static boolean reference(String pattern, int escape, String value) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < pattern.length(); ) {
            int cp = pattern.codePointAt(i);
            i += Character.charCount(cp);
            if (cp == escape) {
                cp = pattern.codePointAt(i);
                i += Character.charCount(cp);
                regex.append(Pattern.quote(new String(Character.toChars(cp))));
            } else if (cp == '%') {
                regex.append(".*");
            } else if (cp == '_') {
                regex.append('.');
            } else {
                regex.append(Pattern.quote(new String(Character.toChars(cp))));
            }
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(value).matches();
    }

    private static List<String> allStrings(String alphabet, int maxLength) {
        List<String> result = new ArrayList<>();
        result.add("");
        int from = 0;
        for (int length = 1; length <= maxLength; length++) {
            int to = result.size();
            for (int i = from; i < to; i++) {
                for (char c : alphabet.toCharArray()) {
                    result.add(result.get(i) + c);
                }
            }
            from = to;
        }
        return result;
    }

    @Test
    void agreesWithReferenceOnEveryShortPatternAndValue() {
        List<String> patterns = allStrings("ab_%", 5);
        List<String> values = allStrings("ab", 6);
        int checked = 0;
        for (String pattern : patterns) {
            LikePattern compiled = LikePattern.compile(pattern, -1);
            for (String value : values) {
                assertEquals(reference(pattern, -1, value), compiled.matches(value),
                        () -> "'" + value + "' LIKE '" + pattern + "'");
                checked++;
            }
        }
        assertEquals(1365 * 127, checked);
    }

    @Test
    void agreesWithReferenceWithEscapes() {
        List<String> patterns = allStrings("a_%!", 5);
        List<String> values = allStrings("a_%!", 4);
        for (String pattern : patterns) {
            LikePattern compiled;
            try {
                compiled = LikePattern.compile(pattern, '!');
            } catch (IllegalArgumentException e) {
                assertTrue(endsWithUnusedEscape(pattern), pattern);
                continue;
            }
            for (String value : values) {
                assertEquals(reference(pattern, '!', value), compiled.matches(value),
                        () -> "'" + value + "' LIKE '" + pattern + "' ESCAPE '!'");
            }
        }
    }

    private static boolean endsWithUnusedEscape(String pattern) {
        int trailing = 0;
        for (int i = pattern.length() - 1; i >= 0 && pattern.charAt(i) == '!'; i--) {
            trailing++;
        }
        return trailing % 2 == 1;
    }

    @Test
    void regexMetacharactersAreLiteral() {
        String meta = ".*+?[](){}|^$\\";
        assertTrue(LikePattern.compile(meta, -1).matches(meta));
        assertFalse(LikePattern.compile("a.c", -1).matches("abc"));
        assertFalse(LikePattern.compile("a*", -1).matches("aaa"));
        assertTrue(LikePattern.compile("a*", -1).matches("a*"));
        assertFalse(LikePattern.compile("[ab]", -1).matches("a"));
        assertTrue(LikePattern.compile("%$", -1).matches("price$"));
        assertFalse(LikePattern.compile("%$", -1).matches("price"));
        assertTrue(LikePattern.compile("\\Q%\\E", -1).matches("\\Qx\\E"));
    }

    @Test
    void simpleShapes() {
        assertTrue(LikePattern.compile("abc", -1).matches("abc"));
        assertFalse(LikePattern.compile("abc", -1).matches("abcd"));
        assertTrue(LikePattern.compile("ab%", -1).matches("abc"));
        assertFalse(LikePattern.compile("ab%", -1).matches("cab"));
        assertTrue(LikePattern.compile("%bc", -1).matches("abc"));
        assertFalse(LikePattern.compile("%bc", -1).matches("bca"));
        assertTrue(LikePattern.compile("%b%", -1).matches("abc"));
        assertFalse(LikePattern.compile("%b%", -1).matches("ac"));
        assertTrue(LikePattern.compile("%%", -1).matches(""));
        assertTrue(LikePattern.compile("%", -1).matches("a\nb"));
        assertTrue(LikePattern.compile("", -1).matches(""));
        assertFalse(LikePattern.compile("", -1).matches("a"));
    }

    @Test
    void underscoreMatchesOneCodePoint() {
        String emoji = new String(Character.toChars(0x1F600));
        assertTrue(LikePattern.compile("a_b", -1).matches("a" + emoji + "b"));
        assertFalse(LikePattern.compile("a__b", -1).matches("a" + emoji + "b"));
        assertTrue(LikePattern.compile("%" + emoji + "_", -1).matches("xx" + emoji + emoji));
        assertTrue(LikePattern.compile("a_%", -1).matches("a\n"));
        // a lone surrogate in the pattern must not match half of a supplementary character
        assertFalse(LikePattern.compile("%\uDE00", -1).matches(emoji));
        assertFalse(LikePattern.compile("\uD83D%", -1).matches(emoji));
        assertFalse(LikePattern.compile("%\uDE00%", -1).matches("x" + emoji + "x"));
        assertTrue(LikePattern.compile("%\uDE00", -1).matches("x\uDE00"));
    }

    @Test
    void escapeMakesWildcardsAndItselfLiteral() {
        assertTrue(LikePattern.compile("a\\_%", '\\').matches("a_xyz"));
        assertFalse(LikePattern.compile("a\\_%", '\\').matches("abxyz"));
        assertTrue(LikePattern.compile("100!%", '!').matches("100%"));
        assertFalse(LikePattern.compile("100!%", '!').matches("1000"));
        assertTrue(LikePattern.compile("a!!", '!').matches("a!"));
        assertTrue(LikePattern.compile("!a", '!').matches("a"));
        assertTrue(LikePattern.compile("%%%%", '%').matches("%%"));
        assertFalse(LikePattern.compile("%%%%", '%').matches("%x"));
        assertThrows(IllegalArgumentException.class, () -> LikePattern.compile("abc!", '!'));
    }

    @Test
    void pathologicalPatternIsStillFast() {
        // exponential in a naive backtracking matcher; the single-backtrack-point algorithm is quadratic at worst
        String value = "a".repeat(5_000);
        LikePattern pattern = LikePattern.compile("%a%a%a%a%a%a%a%a%a%a%b", -1);
        long start = System.nanoTime();
        assertFalse(pattern.matches(value));
        assertTrue(System.nanoTime() - start < java.util.concurrent.TimeUnit.SECONDS.toNanos(5));
    }
}
