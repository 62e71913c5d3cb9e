/**
 * JMS message selectors (JMS 2.0 section 3.8.1): a hand-written tokenizer and recursive-descent parser that compile
 * selector text into an immutable expression tree, evaluated with SQL three-valued logic.
 *
 * <p>The public entry points are {@link org.wharfmq.protocol.selector.Selector},
 * {@link org.wharfmq.protocol.selector.SelectorContext} and
 * {@link org.wharfmq.protocol.selector.SelectorParseException}; everything else is an implementation detail shared
 * by the client (local syntax checking) and the server (evaluation on every delivery attempt).
 */
package org.wharfmq.protocol.selector;
