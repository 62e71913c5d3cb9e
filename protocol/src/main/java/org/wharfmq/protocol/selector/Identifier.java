package org.wharfmq.protocol.selector;

/**
 * A header field or property reference.
 *
 * @param name the case-sensitive name
 */
record Identifier(String name) implements Expression {

    @Override
    public Object evaluate(SelectorContext message) {
        return message.getValue(name);
    }
}
