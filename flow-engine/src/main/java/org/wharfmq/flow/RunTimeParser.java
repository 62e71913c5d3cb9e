package org.wharfmq.flow;

import org.apache.xerces.parsers.SAXParser;
import org.apache.xerces.util.SecurityManager;
import org.xml.sax.SAXException;

/**
 * The parser of what a stylesheet or an XPath expression parses while it runs on a message: a string handed to
 * {@code parse-xml()} (which may come from the message), a document it fetches. A DOCTYPE's internal subset is read,
 * but no external entity or DTD is fetched, and entity expansion is held to Xerces' secure-processing limits
 * (100,000 expansions: no billion laughs). Saxon makes its parsers by class name
 * ({@code Configuration.setSourceParserClass}, in {@link Xml}), hence a public class with a public no-argument
 * constructor. (Message bodies themselves go through {@link Xml}'s own parser, which refuses any DOCTYPE.)
 */
public final class RunTimeParser extends SAXParser {

    private static final String SECURITY_MANAGER = "http://apache.org/xml/properties/security-manager";

    /** A new parser, locked down as the class says. */
    public RunTimeParser() {
        try {
            setFeature("http://xml.org/sax/features/external-general-entities", false);
            setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            setProperty(SECURITY_MANAGER, new SecurityManager());
        } catch (SAXException e) {
            throw new IllegalStateException("Xerces refuses the settings that parse safely: " + e.getMessage(), e);
        }
    }
}
