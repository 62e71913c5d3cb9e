package org.wharfmq.flow;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import net.sf.saxon.s9api.XdmNode;

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
    private byte[] encodedText;
    private JsonNode json;
    private XdmNode xml;
    private int parseCount;

    private MessageBody(Domain domain, byte[] bytes, String text) {
        this.domain = domain;
        this.bytes = bytes;
        this.text = text;
    }

    static MessageBody ofBytes(Domain domain, byte[] bytes) {
        return new MessageBody(domain, bytes == null ? new byte[0] : bytes, null);
    }

    static MessageBody ofText(Domain domain, String text) {
        return new MessageBody(domain, null, text == null ? "" : text);
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
            xml = text != null ? Xml.parse(text) : Xml.parse(bytes);
            parseCount++;
        }
        return xml;
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
