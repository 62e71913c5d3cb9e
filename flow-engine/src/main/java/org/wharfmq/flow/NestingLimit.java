package org.wharfmq.flow;

import org.apache.xerces.xni.QName;
import org.apache.xerces.xni.XMLLocator;
import org.apache.xerces.xni.XNIException;
import org.xml.sax.SAXParseException;

/**
 * The XML domain's limit on how deeply a parsed document's elements nest, {@link Xml#MAX_NESTING_DEPTH}, counted
 * in Xerces' own pipeline by the parsers that read what a message holds ({@link LimitedSaxParser},
 * {@link LimitedDomParser}): Xerces' secure processing bounds entity expansion but not nesting, and a tree nested
 * without end would run the recursion of whatever walks it (a stylesheet's templates, a DOM copy) out of stack. One
 * per parser, on its thread; an element past the limit ends the parse with {@link TooDeep}.
 *
 * <p>Each parser calls it from its own handlers of the pipeline's events (the pipeline's last stage: an empty element
 * comes to them as its start and end) rather than through a filter of its own in Xerces' pipeline: Xerces has no
 * filter that passes events on to extend, so such a filter would forward every one of XNI's sixteen document events
 * to count three, and be put in place by overriding the parser configuration's protected pipeline set-up.
 */
final class NestingLimit {

    /** The parse's failure: an element nested deeper than the limit. */
    static final class TooDeep extends SAXParseException {
        TooDeep(String message, XMLLocator at) {
            super(message, at == null ? null : at.getPublicId(), at == null ? null : at.getLiteralSystemId(),
                    at == null ? -1 : at.getLineNumber(), at == null ? -1 : at.getColumnNumber());
        }
    }

    private final int max;
    private int depth;
    private XMLLocator locator;

    NestingLimit(int max) {
        this.max = max;
    }

    /** A document starts: no element is open. */
    void start(XMLLocator at) {
        depth = 0;
        locator = at;
    }

    /**
     * An element opens.
     *
     * @throws XNIException carrying {@link TooDeep} when it is nested deeper than the limit
     */
    void open(QName element) {
        if (++depth > max) {
            throw new XNIException(new TooDeep("element '" + element.rawname + "' is nested " + depth
                    + " elements deep, deeper than the " + max + " the XML domain parses (Xml.MAX_NESTING_DEPTH), "
                    + "so that no node's recursion runs out on it. Nest the document less deeply.", locator));
        }
    }

    /** An element closes. */
    void close() {
        depth--;
    }
}
