package org.wharfmq.flow;

import org.apache.xerces.jaxp.validation.XMLSchemaFactory;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.XMLReader;

import javax.xml.XMLConstants;
import javax.xml.validation.Schema;
import javax.xml.validation.ValidatorHandler;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An XML Schema, compiled once by Xerces and used to validate message bodies on any number of threads at once
 * (each thread keeps its own validator). Validation runs in the same single pass as the parse, on the XML
 * domain's locked-down parser (no DOCTYPE), and builds no tree. (Xerces' own stream validator is a fifth faster,
 * but it takes no notice of the feature that refuses a DOCTYPE, so it would expand a body's external entities.)
 */
public final class XmlSchema {

    private final String name;
    private final Schema schema;
    private final ThreadLocal<Validation> validation;

    private XmlSchema(String name, Schema schema) {
        this.name = name;
        this.schema = schema;
        this.validation = ThreadLocal.withInitial(() -> new Validation(schema.newValidatorHandler()));
    }

    /**
     * Compiles the schema at {@code url} (a file, or a resource in a flow's jar: {@code getClass().getResource(..)});
     * includes and imports resolve against it.
     *
     * @throws IllegalArgumentException naming the schema and the fault when it cannot be read or is not a valid
     *                                  schema
     */
    public static XmlSchema compile(URL url) {
        if (url == null) {
            throw new IllegalArgumentException("No schema: the URL is null (is the .xsd in the flow's jar?).");
        }
        XMLSchemaFactory factory = new XMLSchemaFactory();
        try {
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            return new XmlSchema(fileName(url), factory.newSchema(url));
        } catch (SAXException e) {
            throw new IllegalArgumentException("Cannot compile the XML Schema " + url + ": " + e.getMessage(), e);
        }
    }

    /** Compiles the schema in the file {@code path}. */
    public static XmlSchema compile(Path path) {
        if (!Files.isReadable(path)) {
            throw new IllegalArgumentException("Cannot read the XML Schema " + path.toAbsolutePath()
                    + ": no such readable file.");
        }
        try {
            return compile(path.toUri().toURL());
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException("Cannot read the XML Schema " + path + ": " + e.getMessage(), e);
        }
    }

    /** The schema's file name, as messages name it. */
    public String name() {
        return name;
    }

    /**
     * Checks {@code message}'s body (bytes or text as it stands, a changed tree serialised) against the schema.
     *
     * @throws XmlValidationException naming the schema, the line and column and the broken rule
     * @throws XmlParseException      when the body is not well-formed XML
     */
    public void validate(FlowMessage message) {
        InputSource input = message.isTextBody() && !message.isBodyChanged()
                ? new InputSource(new StringReader(message.bodyText()))
                : new InputSource(new ByteArrayInputStream(message.bodyBytes()));
        validation.get().run(input);
    }

    /** The compiled schema, for use with the JAXP validation API. */
    public Schema schema() {
        return schema;
    }

    @Override
    public String toString() {
        return name;
    }

    private static String fileName(URL url) {
        String path = url.getPath();
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** One thread's validator and parser; validation errors are thrown, not collected. */
    private final class Validation implements ErrorHandler {
        private final ValidatorHandler handler;
        private final XMLReader reader = Xml.newReader();

        Validation(ValidatorHandler handler) {
            this.handler = handler;
            handler.setErrorHandler(this);
            reader.setContentHandler(handler);
        }

        void run(InputSource input) {
            try {
                reader.parse(input);
            } catch (XmlValidationException e) {
                throw e;
            } catch (SAXException | IOException e) {
                throw new XmlParseException(e);
            }
        }

        @Override
        public void warning(SAXParseException e) {
        }

        @Override
        public void error(SAXParseException e) {
            throw new XmlValidationException(name, e);
        }

        @Override
        public void fatalError(SAXParseException e) {
            throw new XmlValidationException(name, e);
        }
    }
}
