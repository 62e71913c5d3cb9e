package org.wharfmq.flow;

import net.sf.saxon.Configuration;
import net.sf.saxon.lib.EnvironmentVariableResolver;
import net.sf.saxon.lib.Feature;
import net.sf.saxon.s9api.DocumentBuilder;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XdmNode;
import org.apache.xerces.dom.DocumentImpl;
import org.w3c.dom.Document;
import org.xml.sax.ContentHandler;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.XMLReader;
import org.xml.sax.helpers.DefaultHandler;

import javax.xml.transform.sax.SAXSource;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Set;

/**
 * The XML domain's shared machinery: one Saxon {@link Processor} for every flow (it is thread-safe and holds the
 * name pool that every tree, XPath expression and stylesheet must share), and the parsers that turn a body into
 * a tree.
 *
 * <p>Bodies come from other programs, so parsing is locked down: a DOCTYPE is refused, which rules out external
 * entities (XXE) and entity-expansion bombs at once, Xerces' secure processing is on, and elements may nest at most
 * {@link #MAX_NESTING_DEPTH} deep ({@link NestingLimit}). A body is parsed into Saxon's TinyTree for reading (compact,
 * fast for XPath and XSLT, immutable and so safe to share between copies of a message) and into a W3C DOM only
 * when a node asks to change it.
 */
public final class Xml {

    /**
     * How deeply the elements of what a message holds may nest, at most: {@value}. A body (or a string given to
     * {@code parse-xml()}) nested deeper is refused by its parse, naming the element, its line and column and this
     * limit, before any node walks it: a tree nested without end would run the recursion of a stylesheet's templates
     * or a DOM copy out of stack. Below Saxon's own guard of 1,000 nested {@code apply-templates} calls, so that an
     * identity stylesheet's recursion goes through every body the domain parses.
     */
    public static final int MAX_NESTING_DEPTH = 512;

    /** Xerces' feature that refuses any DOCTYPE declaration. */
    static final String DISALLOW_DOCTYPE = "http://apache.org/xml/features/disallow-doctype-decl";
    private static final Processor SAXON = lockedDownProcessor();
    /** Parsers are not thread-safe but are costly to create; each flow thread keeps one of each. */
    private static final ThreadLocal<XMLReader> READER = ThreadLocal.withInitial(Xml::newReader);
    private static final ContentHandler NO_EVENTS = new DefaultHandler();
    private static final ThreadLocal<LimitedDomParser> DOM_PARSER = ThreadLocal.withInitial(LimitedDomParser::new);

    private Xml() {
    }

    /**
     * The processor, its reports to the log through one shared reporter ({@link SaxonReports}). What it runs on a
     * message fetches nothing by default ({@link RunTimeResources#NOTHING}: a stylesheet's transformer is given its
     * own folder), sees no environment variables or Java system properties, and parses what it fetches or is
     * handed ({@code parse-xml()}) without fetching external entities or DTDs and within Xerces' secure-processing
     * limits ({@link RunTimeParser}).
     */
    private static Processor lockedDownProcessor() {
        Processor processor = new Processor(false);
        Configuration configuration = processor.getUnderlyingConfiguration();
        configuration.setErrorReporterFactory(c -> SaxonReports.SHARED);
        RunTimeResources.NOTHING.applyTo(configuration);
        configuration.setConfigurationProperty(Feature.ENVIRONMENT_VARIABLE_RESOLVER, NoEnvironment.INSTANCE);
        configuration.setSourceParserClass(RunTimeParser.class.getName());
        configuration.setConfigurationProperty(Feature.ALLOW_EXTERNAL_FUNCTIONS, false);
        return processor;
    }

    /**
     * The Saxon processor every flow shares: compile XPath expressions and stylesheets with it, so that they can
     * run against message trees.
     */
    public static Processor processor() {
        return SAXON;
    }

    /** Parses bytes (the encoding read from the XML declaration or byte order mark, UTF-8 by default). */
    static XdmNode parse(byte[] bytes) {
        return parse(new InputSource(new ByteArrayInputStream(bytes)));
    }

    /**
     * Parses bytes; with {@code forceUtf8} they are UTF-8 whatever an XML declaration says (a text body encoded
     * by Wharf).
     */
    static XdmNode parseUtf8(byte[] bytes, boolean forceUtf8) {
        InputSource input = new InputSource(new ByteArrayInputStream(bytes));
        if (forceUtf8) {
            input.setEncoding("UTF-8");
        }
        return parse(input);
    }

    /** Parses text. */
    static XdmNode parse(String text) {
        return parse(new InputSource(new StringReader(text)));
    }

    private static XdmNode parse(InputSource input) {
        DocumentBuilder builder = SAXON.newDocumentBuilder();
        try {
            return builder.build(new SAXSource(READER.get(), input));
        } catch (SaxonApiException e) {
            throw new XmlParseException(e);
        }
    }

    /**
     * Runs the locked-down SAX parser over a body (its text if not null, else its bytes), events to
     * {@code handler}, which may stop it by throwing.
     */
    static void scan(byte[] bytes, String text, ContentHandler handler) throws SAXException {
        XMLReader reader = READER.get();
        reader.setContentHandler(handler);
        try {
            reader.parse(text != null ? new InputSource(new StringReader(text))
                    : new InputSource(new ByteArrayInputStream(bytes)));
        } catch (IOException e) {
            throw new UncheckedIOException(e); // in-memory input: cannot happen
        } finally {
            reader.setContentHandler(NO_EVENTS); // let go of the handler; a tree parse sets its own
        }
    }

    /** Parses bytes into a new DOM document that the caller owns. */
    static Document parseDom(byte[] bytes) {
        return parseDom(new InputSource(new ByteArrayInputStream(bytes)));
    }

    /** Parses text into a new DOM document that the caller owns. */
    static Document parseDom(String text) {
        return parseDom(new InputSource(new StringReader(text)));
    }

    private static Document parseDom(InputSource input) {
        try {
            return DOM_PARSER.get().parseDocument(input);
        } catch (SAXException | IOException e) {
            throw new XmlParseException(e);
        }
    }

    /** A new empty DOM document. */
    static Document newDocument() {
        return new DocumentImpl(); // what Xerces' JAXP builder makes
    }

    /** A read-only Saxon view of a DOM document, for XPath and XSLT (not a copy: later DOM changes show). */
    static XdmNode wrap(Document document) {
        return SAXON.newDocumentBuilder().wrap(document);
    }

    /**
     * Serialises a changed body as UTF-8 bytes without an XML declaration, as {@link #serializeBytes(XdmNode)} does:
     * straight from the DOM ({@link DomWriter}) when it has no namespaces, else through Saxon.
     *
     * @param sizeHint the bytes the output is expected to take (the body the document was parsed from)
     */
    static byte[] serializeBytes(Document document, int sizeHint) {
        DomWriter written = DomWriter.write(document, sizeHint);
        return written != null ? written.bytes() : serializeBytes(wrap(document));
    }

    /** Serialises a changed body as text, as {@link #serializeText(XdmNode)} does ({@link #serializeBytes(Document, int)}). */
    static String serializeText(Document document, int sizeHint) {
        DomWriter written = DomWriter.write(document, sizeHint);
        return written != null ? written.text() : serializeText(wrap(document));
    }

    /** Serialises a tree as UTF-8 bytes without an XML declaration, as the XMLNSC writer does. */
    static byte[] serializeBytes(XdmNode tree) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        serialize(tree, SAXON.newSerializer(out));
        return out.toByteArray();
    }

    /** Serialises a tree as text without an XML declaration. */
    static String serializeText(XdmNode tree) {
        StringWriter out = new StringWriter(4096);
        serialize(tree, SAXON.newSerializer(out));
        return out.toString();
    }

    private static void serialize(XdmNode tree, Serializer serializer) {
        serializer.setOutputProperty(Serializer.Property.METHOD, "xml");
        serializer.setOutputProperty(Serializer.Property.ENCODING, "UTF-8");
        serializer.setOutputProperty(Serializer.Property.OMIT_XML_DECLARATION, "yes");
        try {
            serializer.serializeNode(tree);
        } catch (SaxonApiException e) {
            throw new IllegalStateException("Cannot serialise the XML body: " + e.getMessage(), e);
        }
    }

    /** A new locked-down namespace-aware parser whose errors are thrown. */
    static XMLReader newReader() {
        LimitedSaxParser reader = new LimitedSaxParser();
        try {
            reader.setFeature(DISALLOW_DOCTYPE, true);
        } catch (SAXException e) {
            throw new IllegalStateException("Xerces cannot refuse DOCTYPEs, so message bodies cannot be parsed "
                    + "safely", e);
        }
        reader.setErrorHandler(FailOnError.INSTANCE);
        return reader;
    }

    /** The environment variables a stylesheet or expression sees ({@code environment-variable()}): none. */
    private static final class NoEnvironment implements EnvironmentVariableResolver {
        static final NoEnvironment INSTANCE = new NoEnvironment();

        @Override
        public Set<String> getAvailableEnvironmentVariables() {
            return Set.of();
        }

        @Override
        public String getEnvironmentVariable(String name) {
            return null;
        }
    }

    /** Turns warnings into nothing and errors into failures (the default handler prints to stderr). */
    static final class FailOnError implements ErrorHandler {
        static final FailOnError INSTANCE = new FailOnError();

        @Override
        public void warning(SAXParseException e) {
        }

        @Override
        public void error(SAXParseException e) throws SAXException {
            throw e;
        }

        @Override
        public void fatalError(SAXParseException e) throws SAXException {
            throw e;
        }
    }
}
