package org.wharfmq.flow;

import net.sf.saxon.lib.DirectResourceResolver;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XsltCompiler;
import net.sf.saxon.s9api.XsltExecutable;
import net.sf.saxon.s9api.XsltTransformer;

import javax.xml.transform.stream.StreamSource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;

/**
 * An XSLT stylesheet (Saxon-HE: XSLT 1.0, 2.0 and 3.0), compiled once and applied to the XML body of any number of
 * messages on any number of threads at once. Each thread transforms with a transformer of its own, kept for its
 * next message ({@link SaxonPerThread}); the stylesheet's global variables are evaluated again for each message,
 * whose document node is the initial context node and the global context item.
 */
public final class XsltStylesheet {

    private final String location;
    private final SaxonPerThread<XsltTransformer> transformers;
    /** What the stylesheet may read while it runs: the resources in its own folder. */
    private final RunTimeResources resources;

    private XsltStylesheet(String location, XsltExecutable executable) {
        this.location = location;
        this.transformers = new SaxonPerThread<>(executable::load);
        this.resources = RunTimeResources.beside(location);
    }

    /**
     * Compiles the stylesheet at {@code url}; imports and includes resolve against it.
     *
     * @throws IllegalArgumentException naming the stylesheet and Saxon's reason when it cannot be read or compiled
     */
    public static XsltStylesheet compile(URL url) {
        List<String> errors = new ArrayList<>();
        try (InputStream in = url.openStream()) {
            XsltCompiler compiler = Xml.processor().newXsltCompiler();
            // its imports and includes are the operator's, read as it is compiled (what runs on messages is not)
            compiler.setResourceResolver(new DirectResourceResolver(Xml.processor().getUnderlyingConfiguration()));
            compiler.setErrorReporter(error -> {
                if (!error.isWarning()) {
                    errors.add(error.getMessage());
                }
                SaxonReports.SHARED.report(error);
            });
            return new XsltStylesheet(url.toString(), compiler.compile(new StreamSource(in, url.toString())));
        } catch (IOException e) {
            throw new IllegalArgumentException("Cannot read the stylesheet " + url + ": " + e.getMessage(), e);
        } catch (SaxonApiException e) {
            throw new IllegalArgumentException("Cannot compile the stylesheet " + url + ": " + e.getMessage()
                    + (errors.isEmpty() ? "" : ": " + String.join("; ", errors)), e);
        }
    }

    /** Where the stylesheet came from. */
    public String location() {
        return location;
    }

    /**
     * Transforms {@code input}'s XML body and makes the result {@code output}'s body, serialised as the stylesheet's
     * {@code xsl:output} says: text when the input's body is text, else bytes.
     *
     * @throws SaxonApiException  when the transformation fails ({@code xsl:message terminate="yes"}, a dynamic error)
     * @throws XmlParseException  when the input's body is not well-formed XML
     */
    public void transform(FlowMessage input, FlowMessage output) throws SaxonApiException {
        XdmNode tree = input.xml(); // parsed first: a body that is not XML takes no transformer
        XsltTransformer transformer = transformers.get();
        try {
            resources.applyTo(transformer.getUnderlyingController());
            transformer.setInitialContextNode(tree);
            if (input.isTextBody()) {
                StringWriter result = new StringWriter();
                transformer.setDestination(Xml.processor().newSerializer(result));
                transformer.transform();
                output.setBody(result.toString());
            } else {
                // sized as the input (a changed DOM's length is not known without serialising it)
                ByteArrayOutputStream result = new ByteArrayOutputStream(input.isBodyChanged() ? 8192
                        : input.bodyBytes().length);
                transformer.setDestination(Xml.processor().newSerializer(result));
                transformer.transform();
                output.setBody(result.toByteArray());
            }
        } finally {
            release(transformer);
        }
    }

    /**
     * Puts the thread's transformer back as loaded: no initial node, global context item or destination (so it
     * keeps no reference to the message's tree or its result), its controller fresh ({@link SaxonPerThread#fresh}).
     */
    private static void release(XsltTransformer transformer) {
        transformer.setInitialContextNode(null);
        transformer.setDestination(null);
        SaxonPerThread.fresh(transformer.getUnderlyingController());
    }

    @Override
    public String toString() {
        return location;
    }
}
