package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.XPathQuery;

import java.util.List;
import java.util.Map;

/**
 * Passes the assembly to {@code true} or {@code false} by an XPath expression on the XML body (its effective
 * boolean value: an empty node set is false), as App Connect's Filter node does with ESQL. A body that is not
 * well-formed XML, or an expression that fails, goes to {@code failure} (or fails the path when that is unwired).
 */
public final class FilterNode extends Node {

    private final XPathQuery condition;

    /**
     * Filters on {@code xpath}, compiled now.
     *
     * @throws IllegalArgumentException when {@code xpath} is not a valid XPath expression
     */
    public FilterNode(String xpath) {
        this(XPathQuery.compile(xpath));
    }

    /** Filters on a compiled expression. */
    public FilterNode(XPathQuery condition) {
        super("Filter", List.of("in"), List.of("true", "false", "failure"));
        this.condition = condition;
    }

    @Override
    public Map<String, Object> properties() {
        return Map.of("xpath", condition.expression());
    }

    @Override
    protected void validate() {
        if (condition == null) {
            throw new FlowValidationException("a Filter node needs an XPath expression.");
        }
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        boolean result;
        try {
            result = condition.test(assembly.message());
        } catch (RuntimeException e) {
            propagateFailure(assembly, e, context);
            return;
        }
        context.propagate(this, result ? "true" : "false", assembly);
    }
}
