package org.wharfmq.perf.flow;

import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XsltExecutable;
import net.sf.saxon.s9api.XsltTransformer;
import org.apache.xerces.jaxp.validation.XMLSchemaFactory;
import org.xml.sax.SAXException;

import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Validator;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.function.ToIntFunction;

/**
 * The ceilings of the XML flow workloads whose work is a library's: the same validation or XSLT done
 * straight on Saxon-HE or Xerces in a loop, with none of Wharf (no flow engine, no message objects, a processor of
 * its own). "An XSLT flow at 75 % of a plain Saxon loop" is measured against {@link #transform}.
 */
final class PlainLoops {

    private PlainLoops() {
    }

    /** Validates the body against the schema with a Xerces validator (1 when valid; invalid throws). */
    static ToIntFunction<byte[]> validate(URL schema) {
        Validator validator;
        try {
            validator = new XMLSchemaFactory().newSchema(schema).newValidator();
        } catch (SAXException e) {
            throw new IllegalArgumentException(schema.toString(), e);
        }
        return body -> {
            try {
                validator.validate(new StreamSource(new ByteArrayInputStream(body)));
                return 1;
            } catch (SAXException e) {
                throw new IllegalStateException(e);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
    }

    /** Transforms the body with the stylesheet, serialised to bytes; returns the result's length. */
    static ToIntFunction<byte[]> transform(URL stylesheet) {
        Processor saxon = new Processor(false);
        XsltExecutable executable;
        try {
            executable = saxon.newXsltCompiler().compile(new StreamSource(stylesheet.toString()));
        } catch (SaxonApiException e) {
            throw new IllegalArgumentException(stylesheet.toString(), e);
        }
        return body -> {
            try {
                XsltTransformer transformer = executable.load();
                transformer.setSource(new StreamSource(new ByteArrayInputStream(body)));
                ByteArrayOutputStream out = new ByteArrayOutputStream(body.length);
                transformer.setDestination(saxon.newSerializer(out));
                transformer.transform();
                return out.size();
            } catch (SaxonApiException e) {
                throw new IllegalStateException(e);
            }
        };
    }
}
