package org.wharfmq.flow;

import org.apache.xerces.parsers.SAXParser;
import org.apache.xerces.util.SecurityManager;
import org.apache.xerces.xni.Augmentations;
import org.apache.xerces.xni.NamespaceContext;
import org.apache.xerces.xni.QName;
import org.apache.xerces.xni.XMLAttributes;
import org.apache.xerces.xni.XMLLocator;
import org.apache.xerces.xni.XNIException;
import org.xml.sax.SAXException;

/**
 * Xerces' SAX parser with its secure processing (its {@link SecurityManager}: at most 100,000 entity expansions) and
 * the XML domain's nesting limit ({@link NestingLimit}), for what a message holds: its body (through {@link Xml},
 * with DOCTYPEs refused) and what a stylesheet or expression parses while it runs ({@link RunTimeParser}).
 */
class LimitedSaxParser extends SAXParser {

    private static final String SECURITY_MANAGER = "http://apache.org/xml/properties/security-manager";

    private final NestingLimit nesting = new NestingLimit(Xml.MAX_NESTING_DEPTH);

    LimitedSaxParser() {
        try {
            setProperty(SECURITY_MANAGER, new SecurityManager());
        } catch (SAXException e) {
            throw new IllegalStateException("Xerces refuses its own secure processing: " + e.getMessage(), e);
        }
    }

    @Override
    public void startDocument(XMLLocator locator, String encoding, NamespaceContext namespaces, Augmentations augs)
            throws XNIException {
        nesting.start(locator);
        super.startDocument(locator, encoding, namespaces, augs);
    }

    @Override
    public void startElement(QName element, XMLAttributes attributes, Augmentations augs) throws XNIException {
        nesting.open(element);
        super.startElement(element, attributes, augs);
    }

    @Override
    public void endElement(QName element, Augmentations augs) throws XNIException {
        nesting.close();
        super.endElement(element, augs);
    }
}
