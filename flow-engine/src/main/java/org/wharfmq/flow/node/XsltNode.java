package org.wharfmq.flow.node;

import net.sf.saxon.s9api.SaxonApiException;
import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.XsltStylesheet;

import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Transforms the XML body with an XSLT stylesheet (Saxon-HE: XSLT 1.0, 2.0 and 3.0), as App Connect's XSL
 * Transform node. The stylesheet is compiled once, when the node is made; each thread that runs the node (each flow
 * instance) transforms with a transformer of its own, kept between its messages, so instances run in parallel
 * ({@link XsltStylesheet}). The result replaces the body, serialised as the stylesheet's {@code xsl:output} says (a
 * bytes body stays bytes, a text body text); headers and properties are kept. A body that is not well-formed XML, or
 * a transformation that fails ({@code xsl:message terminate="yes"}, a dynamic error), goes to {@code failure} (or
 * fails the path when that is unwired).
 */
public final class XsltNode extends Node {

    private final XsltStylesheet stylesheet;

    private XsltNode(XsltStylesheet stylesheet) {
        super("XSLTransform", List.of("in"), List.of("out", "failure"));
        this.stylesheet = stylesheet;
    }

    /**
     * Compiles the stylesheet at {@code url} (a file, or a resource in the flow's jar:
     * {@code getClass().getResource("transform.xsl")}); imports and includes resolve against it.
     *
     * @throws IllegalArgumentException naming the stylesheet and Saxon's reason when it cannot be read or compiled
     */
    public static XsltNode of(URL url) {
        if (url == null) {
            throw new IllegalArgumentException("No stylesheet: the URL is null (is the .xsl in the flow's jar?).");
        }
        return new XsltNode(XsltStylesheet.compile(url));
    }

    /** Compiles the stylesheet in the file {@code path}. */
    public static XsltNode of(Path path) {
        if (!Files.isReadable(path)) {
            throw new IllegalArgumentException("Cannot read the stylesheet " + path.toAbsolutePath()
                    + ": no such readable file.");
        }
        try {
            return of(path.toUri().toURL());
        } catch (MalformedURLException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Map<String, Object> properties() {
        return Map.of("stylesheet", stylesheet.location());
    }

    @Override
    protected void validate() {
        if (stylesheet == null) {
            throw new FlowValidationException("an XSLTransform node needs a stylesheet.");
        }
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        MessageAssembly out = assembly.copy();
        try {
            stylesheet.transform(assembly.message(), out.message());
        } catch (RuntimeException | SaxonApiException e) {
            propagateFailure(assembly, e, context);
            return;
        }
        context.propagate(this, "out", out);
    }
}
