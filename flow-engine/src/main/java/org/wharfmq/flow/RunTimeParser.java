package org.wharfmq.flow;

import org.xml.sax.SAXException;

/**
 * The parser of what a stylesheet or an XPath expression parses while it runs on a message: a string handed to
 * {@code parse-xml()} (which may come from the message), a document it fetches. A DOCTYPE's internal subset is read,
 * but no external entity or DTD is fetched, entity expansion is held to Xerces' secure-processing limits (100,000
 * expansions: no billion laughs), and elements nest at most {@link Xml#MAX_NESTING_DEPTH} deep. Saxon makes its
 * parsers by class name ({@code Configuration.setSourceParserClass}, in {@link Xml}), hence a public class with a
 * public no-argument constructor. (Message bodies themselves go through {@link Xml}'s own parser, which refuses any DOCTYPE.)
 */
public final class RunTimeParser extends LimitedSaxParser {

    /** A new parser, locked down as the class says. */
    public RunTimeParser() {
        try {
            setFeature("http://xml.org/sax/features/external-general-entities", false);
            setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        } catch (SAXException e) {
            throw new IllegalStateException("Xerces refuses the settings that parse safely: " + e.getMessage(), e);
        }
    }
}
