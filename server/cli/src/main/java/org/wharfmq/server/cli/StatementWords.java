package org.wharfmq.server.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a line of a {@code wharf admin} script into words as a shell would: words are separated by blanks; single
 * quotes keep everything inside as it is; double quotes keep blanks, and a backslash inside them escapes {@code "}
 * and {@code \}; a backslash outside quotes escapes the next character. So a selector is written
 * {@code move --from A --to B --selector "color = 'red'"} in a script as on the command line.
 */
final class StatementWords {

    private StatementWords() {
    }

    /**
     * The words of {@code line}.
     *
     * @throws IllegalArgumentException for a quote that is not closed, or a backslash at the end of the line
     */
    static List<String> split(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
                continue;
            }
            inWord = true;
            if (c == '\'') {
                int end = line.indexOf('\'', i + 1);
                if (end < 0) {
                    throw new IllegalArgumentException("A single quote is not closed: " + line);
                }
                word.append(line, i + 1, end);
                i = end;
            } else if (c == '"') {
                i = doubleQuoted(line, i + 1, word);
            } else if (c == '\\') {
                if (++i == line.length()) {
                    throw new IllegalArgumentException("A backslash ends the line: " + line);
                }
                word.append(line.charAt(i));
            } else {
                word.append(c);
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }

    /** Appends the double-quoted text from {@code start} to {@code word}; returns the index of the closing quote. */
    private static int doubleQuoted(String line, int start, StringBuilder word) {
        for (int i = start; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '"') {
                return i;
            }
            if (c == '\\' && i + 1 < line.length() && (line.charAt(i + 1) == '"' || line.charAt(i + 1) == '\\')) {
                c = line.charAt(++i);
            }
            word.append(c);
        }
        throw new IllegalArgumentException("A double quote is not closed: " + line);
    }
}
