package org.wharfmq.protocol.selector;

/**
 * The three SQL truth values, observed through the public API only: a selector that does not match is FALSE if
 * its negation matches and UNKNOWN otherwise.
 */
enum Truth {
    TRUE,
    FALSE,
    UNKNOWN;

    static Truth of(String selector, SelectorContext message) {
        try {
            if (Selector.parse(selector).matches(message)) {
                return TRUE;
            }
            return Selector.parse("NOT (" + selector + ")").matches(message) ? FALSE : UNKNOWN;
        } catch (SelectorParseException e) {
            throw new AssertionError("valid selector rejected: " + e.getMessage(), e);
        }
    }
}
