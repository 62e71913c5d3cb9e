package org.wharfmq.flow;

import net.sf.saxon.Configuration;
import net.sf.saxon.Controller;
import net.sf.saxon.expr.XPathContext;
import net.sf.saxon.lib.CollectionFinder;
import net.sf.saxon.lib.DirectResourceResolver;
import net.sf.saxon.lib.ResourceCollection;
import net.sf.saxon.lib.ResourceRequest;
import net.sf.saxon.lib.ResourceResolver;
import net.sf.saxon.lib.StandardUnparsedTextResolver;
import net.sf.saxon.lib.UnparsedTextURIResolver;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.Controller;

import javax.xml.transform.Source;
import java.io.Reader;
import java.net.URI;
import java.util.Locale;

/**
 * What a stylesheet or an XPath expression may fetch while it runs on a message: the resources beside the
 * stylesheet (in its jar's folder, or its directory: a lookup document, {@code document('')}), and nothing else.
 * The stylesheets and expressions are the operator's, but the URIs they fetch may come from the message
 * ({@code document(/Order/Link)}, a node's {@code xml:base}, a string handed to {@code xsl:evaluate}), so a
 * message must not be able to make them read the server's files or reach its network. So {@code doc()},
 * {@code document()}, {@code unparsed-text()}, {@code json-doc()} and external entities and DTDs are refused
 * outside the stylesheet's folder, and {@code collection()} always (it lists directories). An XPath expression has
 * no folder: it fetches nothing. ({@code xsl:result-document}, which writes files, does not even compile on the
 * flows' processor: {@link Xml#processor()}.)
 *
 * <p>Immutable and stateless: one instance serves every thread. {@link #NOTHING} is the shared processor's
 * default, which every evaluator falls back to ({@link Xml#processor()}); a stylesheet's own is put on its
 * transformer's controller before each transformation ({@link #applyTo}), since Saxon's controller reset puts the
 * processor's back.
 */
final class RunTimeResources implements ResourceResolver, UnparsedTextURIResolver, CollectionFinder {

    /** Fetches nothing: XPath expressions, and whatever else runs on the shared processor. */
    static final RunTimeResources NOTHING = new RunTimeResources(null, null,
            "an XPath expression (or a stylesheet not compiled by XsltStylesheet)");

    /** The URI prefix of what may be read (a folder, ending in '/'), or null for nothing. */
    private final String folder;
    /** Who asks, for the refusal: "the stylesheet statement.xsl". */
    private final String owner;
    /** Reads what is in the folder (null with no folder). */
    private final DirectResourceResolver direct;
    private final StandardUnparsedTextResolver text = new StandardUnparsedTextResolver();

    private RunTimeResources(String folder, DirectResourceResolver direct, String owner) {
        this.folder = folder;
        this.direct = direct;
        this.owner = owner;
    }

    /** What the stylesheet at {@code location} may read: the resources in its folder. */
    static RunTimeResources beside(String location) {
        String name = location.substring(location.lastIndexOf('/') + 1);
        return new RunTimeResources(location.substring(0, location.lastIndexOf('/') + 1),
                new DirectResourceResolver(Xml.processor().getUnderlyingConfiguration()), "the stylesheet " + name);
    }

    /** Puts this policy on a transformer's controller, for the transformation about to run. */
    void applyTo(Controller controller) {
        controller.setResourceResolver(this);
        controller.setUnparsedTextURIResolver(this);
        controller.setCollectionFinder(this);
    }

    /** Makes this policy the processor's default (for every evaluator that has none of its own). */
    void applyTo(Configuration configuration) {
        configuration.setResourceResolver(this);
        configuration.setUnparsedTextURIResolver(this);
        configuration.setCollectionFinder(this);
    }

    @Override
    public Source resolve(ResourceRequest request) throws XPathException {
        check(request.uri);
        return direct.resolve(request);
    }

    @Override
    public Reader resolve(URI absoluteUri, String encoding, Configuration configuration) throws XPathException {
        check(absoluteUri == null ? null : absoluteUri.toString());
        return text.resolve(absoluteUri, encoding, configuration);
    }

    @Override
    public ResourceCollection findCollection(XPathContext context, String collectionUri) throws XPathException {
        throw refusal("collection() of " + (collectionUri == null ? "the default collection" : collectionUri)
                + ": collections list the server's directories, and flows have none");
    }

    private void check(String uri) throws XPathException {
        if (uri == null || !inFolder(uri)) {
            throw refusal("reading " + uri + ": " + (folder == null ? "it has no folder, so it reads nothing but the "
                    + "message" : "it reads only the resources in its own folder, " + folder + " (put the resource there)"));
        }
    }

    /** Whether {@code uri} names something in the folder (no "." or ".." segment, even percent-encoded). */
    private boolean inFolder(String uri) {
        if (folder == null || !uri.startsWith(folder)) {
            return false;
        }
        for (String segment : uri.substring(folder.length()).split("[/\\\\]", -1)) {
            String lower = segment.toLowerCase(Locale.ROOT);
            if (lower.equals(".") || lower.equals("..") || lower.contains("%2e") || lower.contains("%2f")
                    || lower.contains("%5c")) {
                return false;
            }
        }
        return true;
    }

    private XPathException refusal(String what) {
        XPathException refused = new XPathException("Refused " + what + " (" + owner + " runs on a message, and a "
                + "message must not choose what the server reads or writes: docs/flows.md, \"The XML domain\").");
        refused.setErrorCode("FODC0002");
        return refused;
    }
}
