package org.wharfmq.flow;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import net.sf.saxon.s9api.XdmNode;
import org.wharfmq.flow.records.RecordFormat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A message body as it arrived (the bytes of a BytesMessage or the text of a TextMessage) plus, once a node asks,
 * its parsed tree. Shared by every copy of the message, so the body is parsed at most once per invocation and
 * never copied; it is never modified (a node that changes the body gets its own tree or bytes in
 * {@link FlowMessage}).
 */
final class MessageBody {

    /** Jackson's mapper is thread-safe once configured; one for every flow. */
    static final ObjectMapper JSON = new ObjectMapper();

    private final Domain domain;
    private final byte[] bytes;
    private final String text;
    /** Elements the XML tree leaves empty, or null for a full parse. */
    private final OpaqueElements opaque;
    /** Whether a simple condition may read only as far as it needs ({@link ParseTiming#ON_DEMAND}). */
    private final boolean onDemand;
    /** How a RECORDS body is laid out, or null. */
    private final RecordFormat format;
    private byte[] encodedText;
    private JsonNode json;
    private XdmNode xml;
    private ArrayNode records;
    private int parseCount;

    private MessageBody(Domain domain, byte[] bytes, String text, OpaqueElements opaque, boolean onDemand,
                        RecordFormat format) {
        this.domain = domain;
        this.bytes = bytes;
        this.text = text;
        this.opaque = opaque;
        this.onDemand = onDemand;
        this.format = format;
    }

    static MessageBody ofBytes(Domain domain, byte[] bytes) {
        return new MessageBody(domain, bytes == null ? new byte[0] : bytes, null, null, false, null);
    }

    static MessageBody ofText(Domain domain, String text) {
        return new MessageBody(domain, null, text == null ? "" : text, null, false, null);
    }

    /** This body in the RECORDS domain, laid out as {@code recordFormat} says. */
    MessageBody parsedAs(RecordFormat recordFormat) {
        if (records != null) {
            throw new IllegalStateException("The body was parsed already: set its record format before the first read.");
        }
        return new MessageBody(Domain.RECORDS, bytes, text, null, false, recordFormat);
    }

    /** The record format of a RECORDS body, or null when none was set. */
    RecordFormat format() {
        return format;
    }

    /** This body, whose XML tree will leave the content of {@code elements} unparsed. */
    MessageBody parsedOpaquely(OpaqueElements elements) {
        checkDomain(Domain.XML);
        if (xml != null) {
            throw new IllegalStateException("The body was parsed already: set opaque elements before the first read.");
        }
        return new MessageBody(domain, bytes, text, elements, onDemand, format);
    }

    /** This body, whose simple conditions read only as far as they need until the tree is built. */
    MessageBody parsedOnDemand() {
        checkDomain(Domain.XML);
        return new MessageBody(domain, bytes, text, opaque, true, format);
    }

    /**
     * The condition's value read from the body as far as it needs, or null when it must be evaluated on the tree:
     * the body is not parsed on demand, the tree exists already (reading it is free), or elements are parsed
     * opaquely (the scan would see their content).
     */
    Boolean scan(PathScan condition) {
        checkDomain(Domain.XML);
        if (!onDemand || xml != null || opaque != null) {
            return null;
        }
        return condition.test(bytes, text);
    }

    Domain domain() {
        return domain;
    }

    boolean isText() {
        return text != null;
    }

    byte[] bytes() {
        if (bytes != null) {
            return bytes;
        }
        if (encodedText == null) {
            encodedText = text.getBytes(StandardCharsets.UTF_8);
        }
        return encodedText;
    }

    /** The body's length as it arrived: bytes, or characters of a text body (which are bytes, mostly, once encoded). */
    int length() {
        return bytes != null ? bytes.length : text.length();
    }

    String text() {
        return text != null ? text : new String(bytes, StandardCharsets.UTF_8);
    }

    JsonNode json() {
        checkDomain(Domain.JSON);
        if (json == null) {
            try {
                json = text != null ? JSON.readTree(text) : JSON.readTree(bytes);
            } catch (IOException e) {
                throw new UncheckedIOException("The message body is not valid JSON: " + e.getMessage(), e);
            }
            if (json == null || json.isMissingNode()) {
                json = JSON.nullNode();
            }
            parseCount++;
        }
        return json;
    }

    /** The document node of the body's XML tree, parsed on first use (immutable, so copies share it). */
    XdmNode xml() {
        checkDomain(Domain.XML);
        if (xml == null) {
            if (opaque != null) {
                // the scan works on bytes; a text body is parsed as the UTF-8 it was encoded to
                xml = Xml.parseUtf8(opaque.strip(bytes()), text != null);
            } else {
                xml = text != null ? Xml.parse(text) : Xml.parse(bytes);
            }
            parseCount++;
        }
        return xml;
    }

    /** The records of a RECORDS body, parsed with its format on first use (shared by every copy: read only). */
    ArrayNode records() {
        checkDomain(Domain.RECORDS);
        if (records == null) {
            if (format == null) {
                throw new IllegalStateException("The message body is in the RECORDS domain but has no record format: "
                        + "set records(format) on the input node.");
            }
            records = text != null ? format.parse(text) : format.parse(bytes);
            parseCount++;
        }
        return records;
    }

    /** Whether the XML tree was already built, so that reading it costs nothing more. */
    boolean isXmlParsed() {
        return xml != null;
    }

    private void checkDomain(Domain wanted) {
        if (domain != wanted) {
            throw new IllegalStateException("The message body is in the " + domain + " domain, not " + wanted
                    + ": set domain " + wanted + " on the input node to work with its tree.");
        }
    }

    int parseCount() {
        return parseCount;
    }
}
