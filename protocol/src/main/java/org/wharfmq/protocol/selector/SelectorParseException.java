package org.wharfmq.protocol.selector;

/**
 * Thrown when a message selector is syntactically or semantically invalid.
 *
 * <p>The client maps it to {@code InvalidSelectorException}; the message is meant for the application developer,
 * so it names the problem, the character position and the whole selector text.
 */
public final class SelectorParseException extends Exception {

    private static final long serialVersionUID = 1L;

    private final int position;

    /**
     * Creates an exception for a problem found at a character position of a selector.
     *
     * @param selector the selector text being parsed
     * @param position zero-based index of the offending character in {@code selector}
     * @param reason what is wrong, without position or selector text
     */
    SelectorParseException(String selector, int position, String reason) {
        super(reason + " at position " + position + " in selector \"" + selector + "\"");
        this.position = position;
    }

    /**
     * Returns where the problem was found.
     *
     * @return the zero-based character index into the selector text; equal to the text length when the problem is
     *     an unexpected end of the selector
     */
    public int getPosition() {
        return position;
    }
}
