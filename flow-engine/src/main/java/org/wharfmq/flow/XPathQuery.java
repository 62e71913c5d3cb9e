package org.wharfmq.flow;

import net.sf.saxon.expr.XPathContext;
import net.sf.saxon.expr.XPathContextMajor;
import net.sf.saxon.om.Sequence;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XPathExecutable;
import net.sf.saxon.s9api.XPathSelector;
import net.sf.saxon.s9api.XdmItem;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmValue;

import java.util.Arrays;
import java.util.Map;

/**
 * An XPath 3.1 expression, compiled once (when the flow is built) and evaluated against the XML body of any
 * number of messages on any number of threads at once. The context item is the body's document node, so
 * {@code /Parent/Last} and {@code Parent/Last} both name the Last child of the root element Parent. Each thread
 * evaluates with a selector of its own, kept for its next evaluation ({@link SaxonPerThread}).
 *
 * <pre>{@code
 * static final XPathQuery LAST = XPathQuery.compile("/Parent/Last");
 * ...
 * String last = LAST.string(assembly.message());
 * }</pre>
 */
public final class XPathQuery {

    private final String expression;
    /** The expression's on-demand form when it has one ({@code /A/B} or {@code /A/B = 'text'}), else null. */
    private final PathScan scan;
    private final SaxonPerThread<XPathSelector> selectors;

    private XPathQuery(String expression, XPathExecutable executable, PathScan scan) {
        this.expression = expression;
        this.scan = scan;
        this.selectors = new SaxonPerThread<>(executable::load);
    }

    /**
     * Compiles an expression with no namespace prefixes (unprefixed names match elements in no namespace).
     *
     * @throws IllegalArgumentException naming the expression and Saxon's reason when it is not valid XPath
     */
    public static XPathQuery compile(String expression) {
        return compile(expression, Map.of());
    }

    /**
     * Compiles an expression whose names may use the given prefixes.
     *
     * @param namespaces prefix to namespace URI
     * @throws IllegalArgumentException naming the expression and Saxon's reason when it is not valid XPath
     */
    public static XPathQuery compile(String expression, Map<String, String> namespaces) {
        if (expression == null || expression.isBlank()) {
            throw new IllegalArgumentException("An XPath expression must not be empty.");
        }
        XPathCompiler compiler = Xml.processor().newXPathCompiler();
        namespaces.forEach(compiler::declareNamespace);
        try {
            XPathExecutable executable = compiler.compile(expression);
            return new XPathQuery(expression, executable, PathScan.of(expression, namespaces));
        } catch (SaxonApiException e) {
            throw new IllegalArgumentException("Not a valid XPath expression: " + expression + ": " + e.getMessage(),
                    e);
        }
    }

    /** The expression as written. */
    public String expression() {
        return expression;
    }

    /**
     * The expression's value against {@code message}'s XML body.
     *
     * @throws XPathException     when evaluation fails (e.g. a type error)
     * @throws XmlParseException  when the body is not well-formed XML
     * @throws IllegalStateException when the message is not in the XML domain
     */
    public XdmValue evaluate(FlowMessage message) {
        XPathSelector selector = load(message);
        try {
            return selector.evaluate();
        } catch (SaxonApiException e) {
            throw new XPathException(this, e);
        } finally {
            release(selector);
        }
    }

    /**
     * The expression's effective boolean value (an empty result is false, a non-empty node set true). On a message
     * parsed {@link ParseTiming#ON_DEMAND on demand} whose tree is not built yet, an expression of the form
     * {@code /A/B} or {@code /A/B = 'text'} reads the body only as far as its answer.
     */
    public boolean test(FlowMessage message) {
        if (scan != null) {
            Boolean answer = message.scan(scan);
            if (answer != null) {
                return answer;
            }
        }
        XPathSelector selector = load(message);
        try {
            return selector.effectiveBooleanValue();
        } catch (SaxonApiException e) {
            throw new XPathException(this, e);
        } finally {
            release(selector);
        }
    }

    /** The string value of the expression's first item, or null when the result is empty. */
    public String string(FlowMessage message) {
        XPathSelector selector = load(message);
        try {
            XdmItem first = selector.evaluateSingle();
            return first == null ? null : first.getStringValue();
        } catch (SaxonApiException e) {
            throw new XPathException(this, e);
        } finally {
            release(selector);
        }
    }

    /** The calling thread's selector, its context item the message's document node; {@link #release} it after. */
    private XPathSelector load(FlowMessage message) {
        XdmNode tree = message.xml(); // parsed first: a body that is not XML fails before the selector is taken
        XPathSelector selector = selectors.get();
        try {
            selector.setContextItem(tree);
        } catch (SaxonApiException e) {
            release(selector);
            throw new XPathException(this, e);
        }
        return selector;
    }

    /** The calling thread's selector, as the next evaluation on this thread will take it (for tests). */
    XPathSelector threadSelector() {
        return selectors.get();
    }

    /**
     * Puts the thread's selector back as loaded: no context item and no variable bound (so it keeps no reference to
     * the message's tree), its controller fresh ({@link SaxonPerThread#fresh}).
     */
    private static void release(XPathSelector selector) {
        XPathContext context = selector.getUnderlyingXPathContext().getXPathContextObject();
        if (context instanceof XPathContextMajor major) {
            major.setCurrentIterator(null);
        }
        Sequence[] variables = context.getStackFrame().getStackFrameValues();
        if (variables != null) {
            Arrays.fill(variables, null);
        }
        SaxonPerThread.fresh(context.getController());
    }

    @Override
    public String toString() {
        return expression;
    }

    /** An XPath expression that failed at run time, naming the expression. */
    public static final class XPathException extends RuntimeException {
        XPathException(XPathQuery query, Exception cause) {
            super("XPath " + query.expression + " failed: " + cause.getMessage(), cause);
        }
    }
}
