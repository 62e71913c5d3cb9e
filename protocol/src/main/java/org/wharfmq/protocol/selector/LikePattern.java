package org.wharfmq.protocol.selector;

import java.util.Arrays;

/**
 * A compiled LIKE pattern: {@code _} matches exactly one character, {@code %} any sequence of characters
 * (including none), and every other character, including regular-expression metacharacters, matches itself.
 * Matching is case-sensitive and counts Unicode code points, so {@code _} matches one supplementary character.
 *
 * <p>No regular expressions are involved: the common shapes (no wildcard, {@code abc%}, {@code %abc},
 * {@code %abc%}) reduce to single String calls, and the general case uses the linear-space greedy wildcard
 * algorithm with single-point backtracking, which never recurses and allocates nothing.
 */
final class LikePattern {

    private enum Shape { ANY, EXACT, PREFIX, SUFFIX, CONTAINS, GENERAL }

    /** Marker in {@link #codePoints} for {@code _}; negative, so it cannot collide with a real code point. */
    private static final int ONE_CHAR = -1;
    /** Marker in {@link #codePoints} for {@code %}. */
    private static final int ANY_CHARS = -2;

    private final Shape shape;
    /** The literal text for the simple shapes. */
    private final String literal;
    /** Code points and wildcard markers for {@link Shape#GENERAL}; never mutated after construction. */
    private final int[] codePoints;

    private LikePattern(Shape shape, String literal, int[] codePoints) {
        this.shape = shape;
        this.literal = literal;
        this.codePoints = codePoints;
    }

    /**
     * Compiles a pattern.
     *
     * @param pattern the pattern text, already unquoted
     * @param escape the escape code point, or -1 when there is none; an escaped character matches itself whatever
     *     it is, so escaping a character that is not a wildcard is allowed
     * @throws IllegalArgumentException if the pattern ends with an unused escape character
     */
    static LikePattern compile(String pattern, int escape) {
        int[] elements = new int[pattern.length()];
        int count = 0;
        for (int i = 0; i < pattern.length(); ) {
            int cp = pattern.codePointAt(i);
            i += Character.charCount(cp);
            if (cp == escape) {
                if (i >= pattern.length()) {
                    throw new IllegalArgumentException("LIKE pattern ends with the escape character");
                }
                cp = pattern.codePointAt(i);
                i += Character.charCount(cp);
                elements[count++] = cp;
            } else if (cp == '%') {
                // consecutive % are equivalent to one and would only slow the general matcher down
                if (count == 0 || elements[count - 1] != ANY_CHARS) {
                    elements[count++] = ANY_CHARS;
                }
            } else if (cp == '_') {
                elements[count++] = ONE_CHAR;
            } else {
                elements[count++] = cp;
            }
        }
        return ofElements(Arrays.copyOf(elements, count));
    }

    private static LikePattern ofElements(int[] elements) {
        int n = elements.length;
        int anyCount = 0;
        boolean needsCodePoints = false;
        for (int e : elements) {
            if (e == ANY_CHARS) {
                anyCount++;
            } else if (e == ONE_CHAR || (e <= Character.MAX_VALUE && Character.isSurrogate((char) e))) {
                // String's char-based methods would let a lone surrogate in the pattern match half a character
                needsCodePoints = true;
            }
        }
        if (!needsCodePoints) {
            boolean leading = n > 0 && elements[0] == ANY_CHARS;
            boolean trailing = n > 0 && elements[n - 1] == ANY_CHARS;
            if (anyCount == 0) {
                return new LikePattern(Shape.EXACT, literal(elements, 0, n), null);
            }
            if (n == 1) {
                return new LikePattern(Shape.ANY, "", null);
            }
            if (anyCount == 1 && trailing) {
                return new LikePattern(Shape.PREFIX, literal(elements, 0, n - 1), null);
            }
            if (anyCount == 1 && leading) {
                return new LikePattern(Shape.SUFFIX, literal(elements, 1, n), null);
            }
            if (anyCount == 2 && leading && trailing) {
                return new LikePattern(Shape.CONTAINS, literal(elements, 1, n - 1), null);
            }
        }
        return new LikePattern(Shape.GENERAL, null, elements);
    }

    private static String literal(int[] elements, int from, int to) {
        return new String(elements, from, to - from);
    }

    /** Whether the whole of {@code value} matches the pattern. */
    boolean matches(String value) {
        return switch (shape) {
            case ANY -> true;
            case EXACT -> value.equals(literal);
            case PREFIX -> value.startsWith(literal);
            case SUFFIX -> value.endsWith(literal);
            case CONTAINS -> value.contains(literal);
            case GENERAL -> matchesGeneral(value);
        };
    }

    /**
     * Greedy matching that remembers only the most recent {@code %}: when a later literal fails, letting an
     * earlier {@code %} absorb more characters can never help that a later one could not, so one backtrack point
     * suffices and the worst case is O(pattern length * value length).
     */
    private boolean matchesGeneral(String value) {
        int[] p = codePoints;
        int length = value.length();
        int s = 0;
        int e = 0;
        int starElement = -1;
        int starResume = 0;
        while (s < length) {
            if (e < p.length && p[e] != ANY_CHARS) {
                int cp = value.codePointAt(s);
                if (p[e] == ONE_CHAR || p[e] == cp) {
                    s += Character.charCount(cp);
                    e++;
                    continue;
                }
            } else if (e < p.length) {
                starElement = e++;
                starResume = s;
                continue;
            }
            if (starElement < 0) {
                return false;
            }
            e = starElement + 1;
            starResume += Character.charCount(value.codePointAt(starResume));
            s = starResume;
        }
        while (e < p.length && p[e] == ANY_CHARS) {
            e++;
        }
        return e == p.length;
    }
}
