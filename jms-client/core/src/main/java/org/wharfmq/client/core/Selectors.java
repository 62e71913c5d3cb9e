package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.protocol.selector.SelectorParseException;

/**
 * The client's check of a message selector before it goes to the server: one the grammar refuses fails at once, on the
 * caller's thread, with the parser's message (what is wrong and where), and no CREATE_CONSUMER is written.
 */
final class Selectors {
    private Selectors() {
    }

    /**
     * The selector as it is sent: null for none or a blank one (every message).
     *
     * @throws ClientException {@link ErrorCode#INVALID_SELECTOR}, caused by the parser's exception, when it is invalid
     */
    static String checked(String selector) throws ClientException {
        String text = selector == null || selector.isBlank() ? null : selector;
        try {
            Selector.parse(text);
        } catch (SelectorParseException e) {
            throw new ClientException(ErrorCode.INVALID_SELECTOR, e.getMessage(), e);
        }
        return text;
    }
}
