package org.wharfmq.flow;

import org.apache.xerces.parsers.DOMParser;
import org.apache.xerces.util.SecurityManager;
import org.apache.xerces.xni.Augmentations;
import org.apache.xerces.xni.NamespaceContext;
import org.apache.xerces.xni.QName;
import org.apache.xerces.xni.XMLAttributes;
import org.apache.xerces.xni.XMLLocator;
import org.apache.xerces.xni.XNIException;
import org.w3c.dom.Document;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;

import java.io.IOException;

/**
 * Xerces' DOM parser for a body a node changes ({@link Xml#parseDom}), as the SAX parser is locked down
 * ({@link LimitedSaxParser}): DOCTYPEs refused, Xerces' secure processing, the XML domain's nesting limit
 * ({@link NestingLimit}); its nodes built at once (a changed body is written out whole, so every node is visited:
 * Xerces' deferred DOM allocated 45 MB for a 4 MB body parsed and written, the DOM built at once 33 MB), entity
 * references expanded as JAXP's builder does. One per thread.
 */
final class LimitedDomParser extends DOMParser {

    private final NestingLimit nesting = new NestingLimit(Xml.MAX_NESTING_DEPTH);

    LimitedDomParser() {
        try {
            setFeature(Xml.DISALLOW_DOCTYPE, true);
            setFeature("http://apache.org/xml/features/dom/defer-node-expansion", false);
            setFeature("http://apache.org/xml/features/dom/create-entity-ref-nodes", false);
            setProperty("http://apache.org/xml/properties/security-manager", new SecurityManager());
        } catch (SAXException e) {
            throw new IllegalStateException("Xerces refuses the settings that parse safely: " + e.getMessage(), e);
        }
        setErrorHandler(Xml.FailOnError.INSTANCE);
    }

    /** Parses {@code input} into a new document that the caller owns. */
    Document parseDocument(InputSource input) throws SAXException, IOException {
        try {
            parse(input);
            return getDocument();
        } finally {
            dropDocumentReferences();
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
